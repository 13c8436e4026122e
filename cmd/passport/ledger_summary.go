package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/passport"
)

// canonicalJSON returns v as RFC 8785 canonical JSON.
func canonicalJSON(v any) ([]byte, error) { return passport.Marshal(v) }

type ledgerShareSummaryCmd struct {
	ledgerFile
	Counterparty string `required:"" help:"The counterparty to summarise."`
	asOfFlag
}

func (c *ledgerShareSummaryCmd) Run(e *env) error {
	text, err := c.read(e)
	if err != nil {
		return err
	}
	out, err := shareTool(text, c.Counterparty, c.day())
	if err != nil {
		return toolError(err)
	}
	return writeJSON(e.stdout, out)
}

// receivedSummary is what check-summary reads: the shared object and its id.
type receivedSummary struct {
	Shared json.RawMessage `json:"shared"`
	ID     string          `json:"id"`
}

type ledgerCheckSummaryCmd struct {
	File string `arg:"" default:"-" help:"A JSON file holding shared and id, or - for standard input."`
	jsonFlag
}

func (c *ledgerCheckSummaryCmd) Run(e *env) error {
	b, err := readBounded(e, c.File, 4*ledger.MaxSummaryBytes)
	if err != nil {
		return err
	}
	var in receivedSummary
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&in); err != nil {
		return usageError(fmt.Errorf("%s: not a JSON object with shared and id: %v", c.File, err))
	}
	if len(in.Shared) == 0 || in.ID == "" {
		return usageError(fmt.Errorf("%s: needs both shared and id", c.File))
	}
	out := checkSummaryTool(in.Shared, in.ID)
	if c.JSON {
		err = writeJSON(e.stdout, out)
	} else {
		err = printSummaryCheck(e, out)
	}
	if err != nil {
		return err
	}
	if !*out.Matches {
		return &exitError{code: exitFailed, err: errors.New("")}
	}
	return nil
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
