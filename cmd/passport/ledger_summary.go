package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// canonicalJSON returns v as RFC 8785 canonical JSON.
func canonicalJSON(v any) ([]byte, error) { return passport.Marshal(v) }

// summaryOut is the result of share_summary: a summary, its id and, when
// signed, a JWS over the id; when checking a received summary, whether it
// matches its id and whether the signature verifies.
type summaryOut struct {
	Shared    json.RawMessage   `json:"shared"`
	ID        string            `json:"id"`
	JWS       string            `json:"jws,omitempty"`      // a JWS over the id by the sharer's key
	Matches   *bool             `json:"matches,omitempty"`  // when checking: the id is the hash of shared as received
	Computed  string            `json:"computed,omitempty"` // when checking: the id of shared as received
	Problems  []string          `json:"problems,omitempty"` // when checking: what does not fit the summary format
	Signature *summarySignature `json:"signature,omitempty"`
	Note      string            `json:"note"`
}

// summarySignature is what the signature check found.
type summarySignature struct {
	Verified bool   `json:"verified"`
	Reason   string `json:"reason"` // "ok", a passport reason code, "not_signed", "summary_id_mismatch" or "not_checked"
	Detail   string `json:"detail,omitempty"`
	KeyID    string `json:"kid,omitempty"`
	Signer   string `json:"signer,omitempty"` // the trust file's issuer, when verified
}

const (
	shareNote       = "Send shared and id together. The id is a SHA-256, not a signature: it shows the summary was not changed after the id was made, not who made it."
	signedShareNote = "Send shared, id and jws together. The jws signs the id with your key; a receiver who trusts that key can check who made the summary."
	checkNote       = "A received summary is another agent's reading of its own record: report it next to your own score, never copy it into your events."
)

func shareTool(text []byte, id string, asOf ledger.Date, signer *passport.Signer) (summaryOut, error) {
	f, err := parseText(text)
	if err != nil {
		return summaryOut{}, err
	}
	if err := ledger.CheckID(id); err != nil {
		return summaryOut{}, fmt.Errorf("%w: counterparty: %v", errBadInput, err)
	}
	s, sid, err := f.Share(id, asOf)
	if err != nil {
		return summaryOut{}, fmt.Errorf("%w: %v", errBadInput, err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return summaryOut{}, err
	}
	out := summaryOut{Shared: b, ID: sid, Note: shareNote}
	if signer != nil {
		if out.JWS, err = signer.SignCompact([]byte(sid), ledger.SummaryJWSType); err != nil {
			return summaryOut{}, err
		}
		out.Note = signedShareNote
	}
	return out, nil
}

// checkSummaryTool checks a received summary against its id and, with a
// trust file, its signature.
func checkSummaryTool(shared json.RawMessage, id, jws string, trust *verifier.Trust) summaryOut {
	c := ledger.CheckSummary(shared, id)
	out := summaryOut{Shared: shared, ID: id, JWS: jws, Matches: &c.Matches, Computed: c.Computed, Problems: c.Problems, Note: checkNote}
	switch {
	case trust == nil && jws == "":
	case trust == nil:
		out.Signature = &summarySignature{Reason: string(passport.ReasonNotChecked), Detail: "no trust file was given to check the jws against"}
	case jws == "":
		out.Signature = &summarySignature{Reason: string(passport.ReasonNotSigned), Detail: "the summary carries no jws"}
	default:
		out.Signature = verifySummarySignature(jws, id, c.Shared, trust)
	}
	return out
}

// verifySummarySignature checks jws with the verifier (see
// verifier.VerifySummarySignature) and reports it in the tool's form.
func verifySummarySignature(jws, id string, s *ledger.Summary, trust *verifier.Trust) *summarySignature {
	v, err := verifier.New(trust)
	if err != nil {
		return &summarySignature{Reason: string(passport.ReasonOf(err)), Detail: err.Error()}
	}
	var asOf time.Time
	if s != nil && !s.AsOf.IsZero() {
		asOf, _ = time.Parse(time.DateOnly, s.AsOf.String())
	}
	c := v.VerifySummarySignature([]byte(jws), id, asOf)
	sig := &summarySignature{Verified: c.OK, Reason: string(c.Reason), KeyID: c.KeyID}
	if c.OK {
		sig.Signer = trust.Issuer
	} else {
		sig.Detail = c.Detail
	}
	return sig
}

type ledgerShareSummaryCmd struct {
	ledgerFile
	Counterparty string `required:"" help:"The counterparty to summarise."`
	Sign         string `placeholder:"KEY" help:"Sign the summary id with this private key file (a JWK from 'passport keys generate')."`
	asOfFlag
}

func (c *ledgerShareSummaryCmd) Run(e *env) error {
	var signer *passport.Signer
	if c.Sign != "" {
		var err error
		if signer, err = loadSigner(e, c.Sign); err != nil {
			return err
		}
	}
	text, err := c.read(e)
	if err != nil {
		return err
	}
	out, err := shareTool(text, c.Counterparty, c.day(), signer)
	if err != nil {
		return toolError(err)
	}
	return writeJSON(e.stdout, out)
}

// receivedSummary is what check-summary reads: the shared object, its id
// and, when signed, the JWS over the id.
type receivedSummary struct {
	Shared json.RawMessage `json:"shared"`
	ID     string          `json:"id"`
	JWS    string          `json:"jws"`
}

type ledgerCheckSummaryCmd struct {
	File  string `arg:"" default:"-" help:"A JSON file holding shared, id and optionally jws, or - for standard input."`
	Trust string `placeholder:"FILE" help:"Check the jws against this trust file, which names the sharer and its keys."`
	jsonFlag
}

func (c *ledgerCheckSummaryCmd) Run(e *env) error {
	var trust *verifier.Trust
	if c.Trust != "" {
		var err error
		if trust, err = loadTrust(e, c.Trust); err != nil {
			return err
		}
	}
	b, err := readBounded(e, c.File, 4*ledger.MaxSummaryBytes)
	if err != nil {
		return err
	}
	var in receivedSummary
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&in); err != nil {
		return cli.Usage(fmt.Errorf("%s: not a JSON object with shared and id: %v", c.File, err))
	}
	if len(in.Shared) == 0 || in.ID == "" {
		return cli.Usage(fmt.Errorf("%s: needs both shared and id", c.File))
	}
	out := checkSummaryTool(in.Shared, in.ID, in.JWS, trust)
	if c.JSON {
		err = writeJSON(e.stdout, out)
	} else {
		err = printSummaryCheck(e, out)
	}
	if err != nil {
		return err
	}
	switch sig := out.Signature; {
	case !*out.Matches:
		return cli.Silent(cli.ExitFailed)
	case sig == nil || sig.Reason == string(passport.ReasonNotChecked) || sig.Verified:
		return nil
	case sig.Reason == string(passport.ReasonKeyUnknown):
		return cli.Silent(exitIndeterminate)
	}
	return cli.Silent(cli.ExitFailed)
}

func printSummaryCheck(e *env, out summaryOut) error {
	w := e.stdout
	if *out.Matches {
		fmt.Fprintf(w, "matches: the summary is unchanged since its id %s was made\n", out.ID)
	} else {
		fmt.Fprintf(w, "does not match: the id is %s but the summary hashes to %s\n", out.ID, out.Computed)
	}
	for _, p := range out.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	switch sig := out.Signature; {
	case sig == nil:
		fmt.Fprintln(w, "  unsigned: the id is a hash, so anyone could have made this pair")
	case sig.Verified:
		fmt.Fprintf(w, "  signed by %s (kid %s): the signature verifies against the trust file\n", sig.Signer, sig.KeyID)
	default:
		fmt.Fprintf(w, "  signature not verified: %s (%s)\n", sig.Detail, sig.Reason)
	}
	if *out.Matches {
		var s ledger.Summary
		if json.Unmarshal(out.Shared, &s) == nil {
			fmt.Fprintf(w, "  %s: %.1f %s (confidence %.0f%%, %s, newest %s) as of %s, in the sender's own record\n",
				s.Counterparty, s.Score, s.Tier, 100*s.Confidence, plural(s.Events, "event"), s.NewestEvent, s.AsOf)
		}
	}
	_, err := fmt.Fprintf(w, "  %s\n", out.Note)
	return err
}

// readSigningFlags loads the optional signing key and trust file of the
// MCP server.
func readSigningFlags(e *env, sign, trust string) (*passport.Signer, *verifier.Trust, error) {
	var s *passport.Signer
	var t *verifier.Trust
	var err error
	if sign != "" {
		if s, err = loadSigner(e, sign); err != nil {
			return nil, nil, err
		}
	}
	if trust != "" {
		if t, err = loadTrust(e, trust); err != nil {
			return nil, nil, err
		}
	}
	return s, t, nil
}
