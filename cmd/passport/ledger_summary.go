package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/ledger/ledgertools"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// canonicalJSON returns v as RFC 8785 canonical JSON.
func canonicalJSON(v any) ([]byte, error) { return passport.Marshal(v) }

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
	out, err := ledgertools.Share(text, c.Counterparty, c.day(), signer)
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
	out := ledgertools.CheckSummary(in.Shared, in.ID, in.JWS, trust)
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

func printSummaryCheck(e *env, out ledgertools.SummaryOut) error {
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
