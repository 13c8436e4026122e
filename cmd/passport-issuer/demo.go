package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
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
	Out      string `name:"out" default:"demo" placeholder:"DIR" help:"Directory demo writes to: the bundle, its evidence file, the trust file, the status list, the main agent's holder key and the reader's API key, and, unless --db and --keys name others, the database (passportkit.db) and the key directory (passportkit-keys)."`
	Disclose string `default:"previews" enum:"previews,all,none" help:"Evidence records the written bundle discloses: previews, all or none."`
	NoServe  bool   `name:"no-serve" help:"Exit after writing the files instead of serving."`
}

// Help is the long help of demo.
func (c *demoCmd) Help() string {
	return `Builds a synthetic world in the database through the issuer's own use cases (operators, agents, memories with lineage and appliesTo, consumption, outcome reports, corroborations, an unresolved contradiction, a digest confirmed with evidence, a ring of same-owner agents whose praise of one another is refused, an agent with declarations only), or reuses it when the database already holds the world of this seed. Before anything else it binds its address, so that a busy port fails it before it writes anything. Then it registers a holder key for the main agent (kept in holder.jwk, mode 0600) through the issuer's use cases as an agent does, keeps an API key of the reader, an agent whose search finds the world's digest first (in agent.key, mode 0600), issues the agent's passport with the active signing key (creating a first key when none is active), verifies it with the verifier package, writes bundle.json, evidence.json, issuer-trust.json and the passport's status list, status.jwt, to --out, prints what to try next, and serves the HTTP API as serve does. Unless --issuer is given, the issuer is named by the address it serves on. Only for development: it refuses --env production.`
}

// demoFiles are the files the demo writes into --out.
const (
	demoBundle   = "bundle.json"
	demoEvidence = "evidence.json"
	demoTrust    = "issuer-trust.json"
	demoStatus   = "status.jwt"
	demoHolder   = "holder.jwk"
	// demoAgentKey holds an API key of the world's reader.
	demoAgentKey = "agent.key"
	// demoPresentation is the file the printed present command writes.
	demoPresentation = "presentation.json"
	demoDatabase     = "passportkit.db"
	demoKeys         = "passportkit-keys"
)

// The relying party of the presentation demo prints: who it is, and the
// nonce it handed the agent.
const (
	demoAudience = "https://verifier.example"
	demoNonce    = "8Hq3vKx2Tz"
)

func (c *demoCmd) Run(e *env, kctx *kong.Context) error {
	if c.Env == "production" {
		return cli.Usage(errors.New("demo writes a synthetic world: it runs with --env development only"))
	}
	// The address first: a second demo on a busy port fails here, having
	// written nothing.
	var ls *listeners
	addr := c.Addr
	if !c.NoServe {
		var err error
		if ls, err = c.listen(); err != nil {
			return fmt.Errorf("demo: %w; nothing was written", err)
		}
		addr = ls.api.Addr().String()
	}
	c.Addr = addr
	c.place(e, kctx, addr)
	if err := c.prepare(e); err != nil {
		if ls != nil {
			ls.close()
		}
		return err
	}
	if c.NoServe {
		return nil
	}
	return c.serveCmd.serve(e, ls)
}

// place keeps the demo's database and keys under --out unless --db or
// --keys name others, and names the issuer by the address it serves on
// unless --issuer names it.
func (c *demoCmd) place(e *env, kctx *kong.Context, addr string) {
	if !given(kctx, "db") {
		e.dbURL = filepath.Join(c.Out, demoDatabase)
	}
	if !given(kctx, "keys") {
		c.KeyDir = filepath.Join(c.Out, demoKeys)
	}
	if !given(kctx, "issuer") {
		c.Issuer = "http://" + addr
	}
}

// given reports whether the flag called name was given on the command line
// or through its environment variable, rather than left at its default.
func given(kctx *kong.Context, name string) bool {
	for _, p := range kctx.Path {
		if p.Flag != nil && p.Flag.Name == name {
			return true
		}
	}
	for _, f := range kctx.Flags() {
		if f.Name != name {
			continue
		}
		for _, v := range f.Envs {
			if _, ok := os.LookupEnv(v); ok {
				return true
			}
		}
	}
	return false
}

// prepare builds or finds the world, issues and checks the main agent's
// passport, writes the files and prints what to try next.
func (c *demoCmd) prepare(e *env) error {
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
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
	issued, err := c.issueHeld(e, db, ring, passports, main)
	if err != nil {
		return err
	}
	trustFile, err := ring.TrustFile(e.ctx)
	if err != nil {
		return err
	}
	if err := c.check(e, trustFile, main, issued); err != nil {
		return err
	}
	status, err := statusToken(e, db, ring, issued.Passport)
	if err != nil {
		return err
	}
	if err := writeDemoFiles(c.Out, issued, trustFile, status); err != nil {
		return err
	}
	reader := w.AgentID(w.Reader())
	if err := c.readerKey(e, db, reader); err != nil {
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

	base := "http://" + c.Addr
	c.printNext(e.stdout, main, issued.Passport.Status)
	if c.NoServe {
		fmt.Fprintf(e.stdout, "Then run demo again without --no-serve and fetch:\n\n")
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
	search := fmt.Sprintf("curl -H \"Authorization: Bearer $(cat %s)\" '%s/api/memories/search?q=%s'",
		filepath.Join(c.Out, demoAgentKey), base, url.QueryEscape(demoworld.KnowledgeQuery))
	fmt.Fprintf(e.stdout, "and search the memories as %q (%s) does, with its API key in %s: the digest comes first, a knowledge entry:\n\n  %s\n\n",
		w.Agents[w.Reader()].Name, reader, filepath.Join(c.Out, demoAgentKey), search)
	return nil
}

// printNext prints the files demo wrote and the commands that check them:
// as a third party, and as a relying party the agent presents its passport
// to, with the status list status names (nil when the issuer keeps none).
func (c *demoCmd) printNext(out io.Writer, main issuer.AgentID, status *passport.StatusRef) {
	f := func(name string) string { return filepath.Join(c.Out, name) }
	trust, bundle := f(demoTrust), f(demoBundle)
	fmt.Fprintf(out, `
Wrote %s, %s, %s, %s and the main agent's holder key %s. Next, check them as a third party would:

  go run ./cmd/passport verify --trust %s --subject %s %s
  go run ./cmd/passport verify --trust %s --subject %s --recompute --evidence %s %s

Present the passport as its agent would, with its holder key, to a relying party that names itself and hands it a nonce:

  go run ./cmd/passport present --bundle %s --key %s --aud %s --nonce %s -o %s

`, bundle, f(demoEvidence), trust, f(demoStatus), f(demoHolder),
		trust, main, bundle, trust, main, f(demoEvidence), bundle,
		bundle, f(demoHolder), demoAudience, demoNonce, f(demoPresentation))
	verify := fmt.Sprintf("go run ./cmd/passport verify --trust %s --subject %s --presentation --aud %s --nonce %s", trust, main, demoAudience, demoNonce)
	if status == nil {
		fmt.Fprintf(out, "and check it as the relying party (the issuer keeps no status list):\n\n  %s %s\n\n", verify, f(demoPresentation))
		return
	}
	fmt.Fprintf(out, `and check it as the relying party, offline, with the status list the passport names (%s is the list as it stood
just now, fresh for five minutes; fetch it again from the issuer with curl -fsS -o %s %s):

  %s --status %s %s

`, f(demoStatus), f(demoStatus), status.StatusList.URI, verify, f(demoStatus), f(demoPresentation))
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

// issueHeld issues the passport of main, an agent that holds the key in
// --out's holder.jwk. When no passport of main names that key (or there is
// no such file yet), the key, or a new Ed25519 key, is registered through
// the issuer's use cases as an agent registers one: the operator hands the
// agent a new API key, with which it asks for a nonce and proves that it
// holds the key. A new key is written to holder.jwk, mode 0600, once it is
// registered.
func (c *demoCmd) issueHeld(e *env, db *store.DB, ring *keyring.Keyring, passports *service.Passports, main issuer.AgentID) (*issuing.Issued, error) {
	issue := func() (*issuing.Issued, error) {
		is, err := passports.Issue(e.ctx, main, issuing.Disclosure(c.Disclose))
		if err != nil {
			return nil, fmt.Errorf("demo: issue the passport of %s: %w", main, err)
		}
		return is, nil
	}
	issued, err := issue()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(c.Out, demoHolder)
	key, err := readHolderKey(path)
	if err != nil {
		return nil, err
	}
	if key != nil && issued.Passport.Cnf != nil && slices.Contains(issued.Passport.Cnf.JKTs, key.Public().KeyID()) {
		return issued, nil
	}
	fresh := key == nil
	if fresh {
		if key, err = passport.GenerateKey(passport.EdDSA, rand.Reader); err != nil {
			return nil, err
		}
	}
	if err := registerHolderKey(e, db, ring.Issuer(), main, key); err != nil {
		return nil, fmt.Errorf("demo: register the holder key of %s: %w", main, err)
	}
	if fresh {
		b, err := key.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(path, b, 0o600); err != nil {
			return nil, err
		}
	}
	return issue()
}

// readerKey keeps an API key of reader in --out's agent.key, mode 0600:
// the key the file holds while it authenticates reader, otherwise a new one
// the operator hands it (which revokes its earlier keys).
func (c *demoCmd) readerKey(e *env, db *store.DB, reader issuer.AgentID) error {
	path := filepath.Join(c.Out, demoAgentKey)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		p, err := db.Authenticate(e.ctx, issuer.APIKey(strings.TrimSpace(string(b))))
		if err == nil && p.AgentID == reader {
			return nil
		}
		if _, ok := errors.AsType[*issuer.Error](err); err != nil && !ok {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	key, err := service.NewAdmin(db, service.AdminOptions{}).RotateKey(e.ctx, reader, nil)
	if err != nil {
		return fmt.Errorf("demo: an API key for %s: %w", reader, err)
	}
	return writeFileAtomic(path, []byte(string(key)+"\n"), 0o600)
}

// readHolderKey reads the private holder key at path, or returns nil when
// there is no file.
func readHolderKey(path string) (*passport.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	key, err := passport.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("demo: %s: %w (remove it and run demo again for a new holder key)", path, err)
	}
	return key, nil
}

// registerHolderKey registers key as agent's one holder key, as the agent
// would: with a new API key the operator hands it, it asks the service for
// a nonce and answers with its proof of possession.
func registerHolderKey(e *env, db *store.DB, issuerID string, agent issuer.AgentID, key *passport.PrivateKey) error {
	apiKey, err := service.NewAdmin(db, service.AdminOptions{}).RotateKey(e.ctx, agent, nil)
	if err != nil {
		return err
	}
	sealer, err := cursorSealer(e.ctx, db)
	if err != nil {
		return err
	}
	app := service.New(db, service.Options{Cursors: sealer, Issuer: issuerID})
	p, err := app.Authenticate(e.ctx, apiKey)
	if err != nil {
		return err
	}
	nonce, err := app.HolderKeyNonce(e.ctx, p)
	if err != nil {
		return err
	}
	proof, err := passport.ProveHolderKey(key, passport.HolderProof{Audience: issuerID, Nonce: nonce.Nonce, Subject: string(agent)})
	if err != nil {
		return err
	}
	jwk, err := key.Public().MarshalJSON()
	if err != nil {
		return err
	}
	_, err = app.SetHolderKeys(e.ctx, p, issuer.HolderKeysRequest{Keys: []issuer.HolderKeyProof{{JWK: jwk, Proof: proof}}})
	return err
}

// statusToken returns the token of the status list the passport p names,
// as the issuer serves it now, or nil when p names none.
func statusToken(e *env, db *store.DB, ring *keyring.Keyring, p passport.Passport) ([]byte, error) {
	if p.Status == nil {
		return nil, nil
	}
	uri := p.Status.StatusList.URI
	id, err := issuer.ParseStatusListID(uri[strings.LastIndex(uri, "/")+1:])
	if err != nil {
		return nil, fmt.Errorf("demo: status list %s: %w", uri, err)
	}
	tok, err := service.NewStatusLists(db, ring, service.StatusListOptions{}).Token(e.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("demo: status list %s: %w", uri, err)
	}
	return tok.Token, nil
}

// writeDemoFiles writes the bundle, the evidence file, the trust file and
// the status list token (when there is one) into dir, each replaced whole.
func writeDemoFiles(dir string, is *issuing.Issued, trustFile, status []byte) error {
	files := map[string][]byte{demoBundle: is.Bundle, demoEvidence: is.EvidenceFile, demoTrust: trustFile}
	if status != nil {
		files[demoStatus] = status
	}
	for name, b := range files {
		if err := writeFileAtomic(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes b to path, with mode perm, through a temporary
// file and a rename, so that a reader never sees half a file.
func writeFileAtomic(path string, b []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
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
