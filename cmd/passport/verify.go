package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
	"github.com/remnant/passportkit/verifier"
)

type verifyCmd struct {
	Trust      string        `help:"Trust file naming the issuer and its keys." env:"PASSPORT_TRUST" placeholder:"FILE" type:"path"`
	At         string        `help:"Verify as of this RFC 3339 time instead of now." placeholder:"RFC3339"`
	Skew       time.Duration `help:"Clock skew tolerated on issuance and expiry." default:"5m"`
	Subject    string        `help:"Require the passport to describe this agent id." xor:"subject" placeholder:"AGENT_ID"`
	AnySubject bool          `name:"any-subject" help:"Accept a passport about any agent; the subject check reports not_required." xor:"subject"`
	JSON       bool          `name:"json" help:"Print one JSON object instead of text."`
	Recompute  bool          `help:"Recompute every skill passport from the disclosed evidence (or the --evidence file); fail on any difference."`
	Evidence   string        `help:"With --recompute: the passport's complete evidence file (as the issuer serves it); its records' root must be the signed evidenceRoot, and every skill passport is recomputed from it." placeholder:"FILE" type:"path"`
	Status     string        `help:"Status list token fetched earlier from the passport's status uri (a compact JWS; one final line feed is ignored): the status check verifies it with the trust file and reads the passport's entry. Without it, a passport that names a list reports the status check as not_checked." placeholder:"FILE" type:"path"`
	// The presentation flags (SPEC.md §11.6).
	Presentation bool           `help:"The input is a presentation (passport present): verify its bundle, then its key binding with --aud, --nonce and --max-age."`
	Aud          string         `help:"With --presentation: your own identifier, which the presentation must be made for." placeholder:"AUDIENCE"`
	Nonce        string         `help:"With --presentation: the nonce you handed the holder." placeholder:"N"`
	MaxAge       *time.Duration `name:"max-age" help:"With --presentation: how old the key binding may be, beyond the skew (default 5m)." placeholder:"DURATION"`
	Input        string         `arg:"" help:"Bundle file (or presentation, with --presentation), or - for standard input." placeholder:"FILE|-"`
}

func (c *verifyCmd) Run(e *env) error {
	v, policy, err := c.setup(e)
	if err != nil {
		return err
	}
	limit := int64(passport.MaxBundleSize)
	if c.Presentation {
		limit = passport.MaxPresentationSize
	}
	input, err := readInput(e, c.Input, limit)
	if err != nil {
		return err
	}
	if c.Status != "" {
		token, err := readInput(e, c.Status, verifier.MaxStatusListSize)
		if err != nil {
			return err
		}
		token = bytes.TrimSuffix(bytes.TrimSuffix(token, []byte("\n")), []byte("\r"))
		policy = policy.WithStatusList(v.ReadStatusList(token))
	}
	var res *verifier.Result
	if c.Presentation {
		res, err = v.VerifyPresentation(e.ctx, input, policy, c.presentationPolicy())
	} else {
		res, err = v.Verify(e.ctx, input, policy)
	}
	if err != nil {
		return err
	}
	var file []byte
	if c.Evidence != "" {
		if file, err = readInput(e, c.Evidence, evidence.MaxFileSize); err != nil {
			return err
		}
	}
	var recomputed []skilltrust.Recomputed
	var evCheck *EvidenceFileCheck
	if c.Recompute && res.Verified {
		var leaves map[int][]byte
		if file != nil {
			check, all := checkEvidenceFile(res, file)
			evCheck, leaves = &check, all
		}
		if evCheck == nil || evCheck.OK {
			if recomputed, err = recomputeSkills(res, leaves); err != nil {
				return err
			}
		}
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		out := struct {
			*verifier.Result
			EvidenceFile *EvidenceFileCheck      `json:"evidenceFile,omitempty"`
			Recompute    []skilltrust.Recomputed `json:"recompute,omitempty"`
		}{res, evCheck, recomputed}
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printResult(e, res)
		if evCheck != nil {
			printEvidenceFile(e.stdout, evCheck)
		}
		if c.Recompute && res.Verified && (evCheck == nil || evCheck.OK) {
			printRecomputed(e.stdout, recomputed)
		}
	}
	switch {
	case res.Verified && evCheck != nil && !evCheck.OK:
		return cli.Exit(cli.ExitFailed, fmt.Errorf("evidence file: %s: %s", evCheck.Reason, evCheck.Detail))
	case res.Verified && c.Recompute:
		if err := recomputeError(recomputed); err != nil {
			return cli.Exit(cli.ExitFailed, err)
		}
		return nil
	case res.Verified:
		return nil
	case res.Indeterminate():
		return cli.Silent(exitIndeterminate)
	default:
		return cli.Silent(cli.ExitFailed)
	}
}

// Validate refuses --evidence without --recompute, since the file is read
// only to recompute from it, and checks the presentation flags: --aud and
// --nonce with --presentation, which is the only use of them and of
// --max-age.
func (c *verifyCmd) Validate() error {
	switch {
	case c.Evidence != "" && !c.Recompute:
		return errors.New("--evidence needs --recompute")
	case !c.Presentation && (c.Aud != "" || c.Nonce != "" || c.MaxAge != nil):
		return errors.New("--aud, --nonce and --max-age verify a presentation: add --presentation")
	case c.Presentation && (c.Aud == "" || c.Nonce == ""):
		return errors.New("--presentation needs --aud (your own identifier) and --nonce (the one you handed the holder)")
	case c.MaxAge != nil && (*c.MaxAge < 0 || *c.MaxAge > verifier.MaxMaxAge):
		return fmt.Errorf("--max-age must lie between 0 and %v", verifier.MaxMaxAge)
	}
	return nil
}

// presentationPolicy returns the presentation policy of the flags, which
// Validate checked.
func (c *verifyCmd) presentationPolicy() verifier.PresentationPolicy {
	pp := verifier.ForPresentation(c.Aud, c.Nonce)
	if c.MaxAge != nil {
		pp = pp.WithMaxAge(*c.MaxAge)
	}
	return pp
}

// setup reads the trust file and flags into a verifier and a policy.
func (c *verifyCmd) setup(e *env) (*verifier.Verifier, verifier.Policy, error) {
	var policy verifier.Policy
	v, err := loadVerifier(e, c.Trust, c.Skew)
	if err != nil {
		return nil, policy, err
	}
	switch {
	case c.Subject != "":
		policy = verifier.ForSubject(c.Subject)
	case c.AnySubject:
		policy = verifier.AnySubject()
	default:
		return nil, policy, cli.Usage(errors.New("say whose passport you expect: --subject AGENT_ID, or --any-subject to accept any"))
	}
	if c.At != "" {
		t, err := time.Parse(time.RFC3339, c.At)
		if err != nil {
			return nil, policy, cli.Usage(fmt.Errorf("--at: %w", err))
		}
		policy = policy.At(t)
	}
	return v, policy, nil
}

// loadVerifier builds a verifier from a trust file; every failure is a
// usage error.
func loadVerifier(e *env, trustFile string, skew time.Duration) (*verifier.Verifier, error) {
	if trustFile == "" {
		return nil, cli.Usage(errors.New("a trust file is required: --trust FILE or PASSPORT_TRUST"))
	}
	trust, err := loadTrust(e, trustFile)
	if err != nil {
		return nil, err
	}
	v, err := verifier.New(trust, verifier.WithSkew(skew))
	if err != nil {
		return nil, cli.Usage(err)
	}
	return v, nil
}

// printResult writes one line per check, then the verdict. Only a verified
// result shows the passport's identity.
func printResult(e *env, res *verifier.Result) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, c := range res.Checks {
		mark := "ok"
		detail := c.Detail
		switch {
		case c.Reason == passport.ReasonNotReached:
			mark = "--"
		case c.Skipped():
			mark = "skip"
			detail = string(c.Reason) + ": " + detail
		case !c.OK:
			mark = "FAIL"
			detail = string(c.Reason) + ": " + detail
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", mark, c.Name, detail)
	}
	tw.Flush()
	if res.Verified {
		fmt.Fprintf(e.stdout, "\nverified: %s issued by %s\n  passportHash %s\n  evidenceRoot %s\n  kid %s\n",
			res.Subject, res.Issuer, res.PassportHash, res.EvidenceRoot, res.KeyID)
		if res.HolderKey != "" {
			fmt.Fprintf(e.stdout, "  presented by holder key %s\n", res.HolderKey)
		}
		return
	}
	fmt.Fprintf(e.stdout, "\nnot verified: %s\n", res.Reason)
}
