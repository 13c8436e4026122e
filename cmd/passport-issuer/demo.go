package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// demoCmd builds (or finds) the synthetic demo world, issues and verifies
// the main agent's passport, writes it out, and then serves like serve.
type demoCmd struct {
	serveCmd `embed:""`

	Seed     uint64 `env:"PASSPORT_DEMO_SEED" default:"1" help:"Seed of the synthetic world; the same seed builds the same world."`
	Out      string `name:"out" default:"demo" placeholder:"DIR" help:"Directory the bundle, its evidence file and the trust file are written to."`
	Disclose string `default:"previews" enum:"previews,all,none" help:"Evidence records the written bundle discloses: previews, all or none."`
	NoServe  bool   `name:"no-serve" help:"Exit after writing the files instead of serving."`
}

// Help is the long help of demo.
func (c *demoCmd) Help() string {
	return `Builds a synthetic world in the database through the issuer's own use cases (operators, agents, memories with lineage and appliesTo, consumption, outcome reports, corroborations, an unresolved contradiction, a ring of same-owner agents whose praise of one another is refused, an agent with declarations only), or reuses it when the database already holds the world of this seed. Then it issues the main agent's passport with the active signing key (creating a first key when none is active), verifies it with the verifier package, writes bundle.json, evidence.json and issuer-trust.json to --out, prints what to try next, and serves the HTTP API as serve does. Only for development: it refuses --env production.`
}

// demoFiles are the files the demo writes into --out.
const (
	demoBundle   = "bundle.json"
	demoEvidence = "evidence.json"
	demoTrust    = "issuer-trust.json"
)

func (c *demoCmd) Run(e *env) error {
	if c.Env == "production" {
		return cli.Usage(errors.New("demo writes a synthetic world: it runs with --env development only"))
	}
	w := demoworld.Generate(c.Seed)
	res, err := c.build(e, w)
	if err != nil {
		return err
	}
	if res.Reused {
		fmt.Fprintf(e.stdout, "Reusing the demo world (seed %d) already in %s: nothing written to it.\n", w.Seed, displayDB(e.dbURL))
	} else {
		fmt.Fprintf(e.stdout, "Built the demo world (seed %d) in %s: %d operators, %d agents, %d memories, %d steps over %d days through the issuer's use cases.\n",
			w.Seed, displayDB(e.dbURL), len(w.Operators), len(w.Agents), len(w.Memories), res.Steps, w.Steps[0].DaysAgo)
		fmt.Fprintf(e.stdout, "  %d praise attempts by the same-owner ring were refused at submission:\n", len(res.Refusals))
		for _, r := range res.Refusals[:min(2, len(res.Refusals))] {
			fmt.Fprintf(e.stdout, "    %s -> %s on %q: %s (%s)\n", w.Agents[r.Step.Agent].Name, r.Step.Kind, w.Memories[r.Step.Memory].Title, r.Message, r.Code)
		}
		if len(res.Refusals) > 2 {
			fmt.Fprintf(e.stdout, "    ... and %d more alike\n", len(res.Refusals)-2)
		}
	}

	db, err := e.open()
	if err != nil {
		return err
	}
	defer db.Close()
	ring, err := c.startKeys(e, db)
	if err != nil {
		return err
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	main := w.AgentID(w.Main())
	issued, err := passports.Issue(e.ctx, main, issuing.Disclosure(c.Disclose))
	if err != nil {
		return fmt.Errorf("demo: issue the passport of %s: %w", main, err)
	}
	trustFile, err := ring.TrustFile(e.ctx)
	if err != nil {
		return err
	}
	if err := c.check(e, trustFile, main, issued); err != nil {
		return err
	}
	if err := writeDemoFiles(c.Out, issued, trustFile); err != nil {
		return err
	}

	fmt.Fprintf(e.stdout, "\nIssued the passport of %q (%s), %s, signed by %s and verified with the verifier package:\n",
		w.Agents[w.Main()].Name, main, issued.PassportHash, ring.Issuer())
	printSkills(e.stdout, issued.Passport.SkillPassports)
	fmt.Fprintf(e.stdout, "  %d evidence records behind it, all in %s.\n", issued.Passport.EvidenceCount, filepath.Join(c.Out, demoEvidence))
	for _, other := range []struct {
		role demoworld.Role
		what string
	}{
		{demoworld.RoleRing, "a member of the same-owner ring"},
		{demoworld.RoleDeclarer, "the agent with declarations only"},
	} {
		i := w.OfRole(other.role)[0]
		is, err := passports.Issue(e.ctx, w.AgentID(i), issuing.DiscloseNone)
		if err != nil {
			return fmt.Errorf("demo: issue the passport of %s: %w", w.AgentID(i), err)
		}
		fmt.Fprintf(e.stdout, "\nFor comparison, %q (%s), %s:\n", w.Agents[i].Name, w.AgentID(i), other.what)
		printSkills(e.stdout, is.Passport.SkillPassports)
	}

	trust, bundle, evidenceFile := filepath.Join(c.Out, demoTrust), filepath.Join(c.Out, demoBundle), filepath.Join(c.Out, demoEvidence)
	base := "http://" + c.Addr
	fmt.Fprintf(e.stdout, `
Wrote %s, %s and %s. Next, check them as a third party would:

  go run ./cmd/passport verify --trust %s --subject %s %s
  go run ./cmd/passport verify --trust %s --subject %s --recompute --evidence %s %s

`, bundle, evidenceFile, trust, trust, main, bundle, trust, main, evidenceFile, bundle)
	if c.NoServe {
		fmt.Fprintf(e.stdout, "Then serve the issuer (go run ./cmd/passport-issuer serve) and fetch:\n\n")
	} else {
		fmt.Fprintf(e.stdout, "and, while this command serves, fetch:\n\n")
	}
	ringID, declarerID := w.AgentID(w.OfRole(demoworld.RoleRing)[0]), w.AgentID(w.OfRole(demoworld.RoleDeclarer)[0])
	fmt.Fprintf(e.stdout, `  curl %s/.well-known/passport-trust.json
  curl %s/api/public/agents/%s/passport
  curl %s/api/public/agents/%s/passport
  curl %s/api/public/agents/%s/passport
  curl '%s/api/public/agents?skill=%s'

and ask the trust API about one skill, its sources, or several agents side by side:

  curl %s/api/public/agents/%s/skills
  curl '%s%s'
  curl '%s%s'
  curl -H 'Content-Type: application/json' -d '{"agents":["%s","%s"],"skills":["%s","%s"]}' %s/api/public/trust/assess

`, base, base, main, base, ringID, base, declarerID,
		base, url.QueryEscape(demoworld.SkillEstimated),
		base, main,
		base, issuer.NewSkillLinks(main, demoworld.SkillEstimated, evidence.Context{Workload: "high-write-concurrency"}).Trust,
		base, issuer.NewSkillLinks(main, demoworld.SkillContested, evidence.Context{}).Evidence+"?limit=5",
		main, ringID, demoworld.SkillEstimated, demoworld.SkillRing, base)
	fmt.Fprintf(e.stdout, `or open the pages in a browser:

  %s/agents/%s
  %s/agents/%s/skills/%s
  %s/agents?skill=%s
  %s/trust/assess?agent=%s&agent=%s&skill=PostgreSQL+indexing
  %s/verify

`, base, main, base, main, url.PathEscape(demoworld.SkillEstimated), base, url.QueryEscape(demoworld.SkillContested), base, declarerID, main, base)
	if c.NoServe {
		return nil
	}
	db.Close()
	return c.serveCmd.Run(e)
}

// build builds w in the database, or finds it there, through use cases
// (and a store) whose clock and identifiers the build controls.
func (c *demoCmd) build(e *env, w *demoworld.World) (*demoworld.Result, error) {
	clock, ids := &demoworld.Clock{}, &demoworld.IDs{}
	db, err := store.Open(e.ctx, e.dbURL, store.Options{Logger: e.log, Now: clock.Now})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	applied, err := db.Migrate(e.ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range applied {
		e.log.Info("applied migration", "version", m.Version, "name", m.Name)
	}
	res, err := demoworld.Build(e.ctx, w, demoworld.NewEnv(db, clock, ids, time.Now()))
	if errors.Is(err, demoworld.ErrIncomplete) {
		return nil, fmt.Errorf("%w; use a fresh database (or another --seed) and run demo again", err)
	}
	return res, err
}

// check verifies the issued bundle with the verifier package against the
// trust file, as a third party would, requiring it to describe subject.
func (c *demoCmd) check(e *env, trustFile []byte, subject issuer.AgentID, is *issuing.Issued) error {
	trust, err := verifier.ParseTrust(trustFile)
	if err != nil {
		return err
	}
	v, err := verifier.New(trust)
	if err != nil {
		return err
	}
	res, err := v.Verify(e.ctx, is.Bundle, verifier.ForSubject(string(subject)))
	if err != nil {
		return err
	}
	if !res.Verified {
		return fmt.Errorf("demo: the issued bundle does not verify: %s", res.Reason)
	}
	return nil
}

// writeDemoFiles writes the bundle, the evidence file and the trust file
// into dir, each replaced whole.
func writeDemoFiles(dir string, is *issuing.Issued, trustFile []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{demoBundle: is.Bundle, demoEvidence: is.EvidenceFile, demoTrust: trustFile} {
		if err := writeFileAtomic(filepath.Join(dir, name), b); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes b to path through a temporary file and a rename,
// so that a reader never sees half a file.
func writeFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// printSkills prints one line per skill passport: the figures a newcomer
// should look at first.
func printSkills(out io.Writer, sps []passport.SkillPassport) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  skill\tassessment\testimate\tstate\tlevel\tlimitations")
	for _, sp := range sps {
		est := "N/A"
		if sp.Estimate != nil {
			est = fmt.Sprintf("%.2f [%.2f, %.2f]", sp.Estimate.Midpoint, sp.Estimate.Lower, sp.Estimate.Upper)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", sp.Skill, sp.Assessment, est, sp.State, sp.EvidenceLevel, strings.Join(sp.Limitations, ", "))
	}
	tw.Flush()
}

// displayDB names the database for people: a URL without its password.
func displayDB(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return dsn
}
