package ledger

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestShareAndCheckSummary(t *testing.T) {
	f := load(t, "example.md")
	s, id, err := f.Share("shop.example", day(t, "2026-10-22"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Score != 59.6 || s.Tier != Standard || s.Confidence != 0.61 || s.Events != 5 || s.EventsByType[Delivered] != 2 || s.EventsByType[Breached] != 0 || s.NewestEvent.String() != "2026-10-03" {
		t.Errorf("summary = %+v", s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"order", "200", "agent:buyer-7", "main parts supplier", "amount", "note"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("the summary carries %q: %s", leak, b)
		}
	}
	if c := CheckSummary(b, id); !c.Matches || len(c.Problems) != 0 || c.Computed != id {
		t.Errorf("check of the summary as sent: %+v", c)
	}
	// Any layout of the same JSON matches: the id is over the canonical form.
	pretty, _ := json.MarshalIndent(s, "", "  ")
	if c := CheckSummary(pretty, strings.ToUpper(id)); !c.Matches {
		t.Errorf("indented copy does not match: %+v", c)
	}
	tampered := strings.Replace(string(b), `"tier":"standard"`, `"tier":"trusted"`, 1)
	if c := CheckSummary([]byte(tampered), id); c.Matches || c.Shared == nil || c.Shared.Tier != Trusted {
		t.Errorf("tampered summary: %+v", c)
	}
	// A field this reader does not know still counts toward the id.
	extra := strings.Replace(string(b), `{`, `{"extra":1,`, 1)
	if c := CheckSummary([]byte(extra), id); c.Matches || len(c.Problems) == 0 {
		t.Errorf("summary with an extra field: %+v", c)
	}
	for _, bad := range []string{`{"a":1,"a":2}`, `not json`, `{"counterparty":"x"`, strings.Repeat(" ", MaxSummaryBytes+1)} {
		if c := CheckSummary([]byte(bad), id); c.Matches || len(c.Problems) == 0 {
			t.Errorf("CheckSummary(%.20q) = %+v", bad, c)
		}
	}
	if _, _, err := f.Share("nobody.example", day(t, "2026-10-22")); !errors.Is(err, ErrNoCounterparty) {
		t.Errorf("share of an unknown id: %v", err)
	}
}

// TestCheckSummaryGuards pins that a summary is canonicalised under the
// project's JSON guards: an integer beyond ±(2^53−1), which RFC 8785 alone
// would round silently, has no id.
func TestCheckSummaryGuards(t *testing.T) {
	for _, bad := range []string{`{"events":9007199254740993}`, `{"events":1e16}`, `{"a":"\ud800"}`} {
		c := CheckSummary([]byte(bad), strings.Repeat("0", 64))
		if c.Computed != "" || len(c.Problems) == 0 || !strings.Contains(c.Problems[0], "json_") {
			t.Errorf("CheckSummary(%s) = %+v, want a json_* problem and no computed id", bad, c)
		}
	}
}
