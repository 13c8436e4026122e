package ledger

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// codesAt returns "line:code" for each finding.
func codesAt(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.Join([]string{itoa(f.Line), string(f.Code)}, ":"))
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// fm is a complete frontmatter of five lines.
const fm = "---\nreputation: 1\nowner: agent:a\nupdated: 2026-01-01\n---\n"

func TestParseEventFields(t *testing.T) {
	f := mustParse(t, fm+`## Events
- 2026-10-01 · a.example · delivered · 120 · order 441 on time
- 2026-10-02 | a.example | late | 80 | order 437 | two days late
- 2026-10-03 · a.example · delivered · order 450 arrived
- 2026-10-04 · a.example · delivered · - · 12 · boxes
- 2026-10-05 · a.example · refunded · 0.50
- 2026-10-06 · a.example · honored
* 2026-10-07 · a.example · resolved · 7 · mixed | separators · kept in the note
`)
	if len(f.Issues) != 0 {
		t.Fatalf("issues: %v", f.Issues)
	}
	type want struct {
		typ    EventType
		amount string
		note   string
	}
	wants := []want{
		{Delivered, "120", "order 441 on time"},
		{Late, "80", "order 437 | two days late"},
		{Delivered, "", "order 450 arrived"},
		{Delivered, "", "12 · boxes"},
		{Refunded, "0.5", ""},
		{Honored, "", ""},
		{Resolved, "7", "mixed | separators · kept in the note"},
	}
	if len(f.Events) != len(wants) {
		t.Fatalf("%d events, want %d", len(f.Events), len(wants))
	}
	for i, w := range wants {
		e := f.Events[i]
		amount := ""
		if e.Amount != nil {
			amount = num(*e.Amount)
		}
		if e.Type != w.typ || amount != w.amount || e.Note != w.note || e.Line != i+7 {
			t.Errorf("event %d = %s %q %q line %d; want %s %q %q line %d", i, e.Type, amount, e.Note, e.Line, w.typ, w.amount, w.note, i+7)
		}
	}
	// The note "12 boxes" keeps its placeholder in the canonical text.
	if !strings.Contains(f.Canonical(), "- 2026-10-04 · a.example · delivered · - · 12 · boxes\n") {
		t.Errorf("canonical text lost the placeholder:\n%s", f.Canonical())
	}
}

func TestParseCounterparties(t *testing.T) {
	f := mustParse(t, fm+"## Counterparties\n- b.example · store · tools, parts, tools · a note · with a dot\n- a.example · agent\n- c.example · firm · -\n")
	if len(f.Issues) != 0 {
		t.Fatalf("issues: %v", f.Issues)
	}
	c := f.Counterparties[0]
	if c.ID != "b.example" || c.Kind != KindStore || !slices.Equal(c.Categories, []string{"parts", "tools"}) || c.Note != "a note · with a dot" {
		t.Errorf("first counterparty = %+v", c)
	}
	if got := f.Counterparties[1]; got.Kind != KindAgent || len(got.Categories) != 0 || got.Note != "" {
		t.Errorf("second counterparty = %+v", got)
	}
	if ids := []string{f.Document().Counterparties[0].ID, f.Document().Counterparties[2].ID}; ids[0] != "a.example" || ids[1] != "c.example" {
		t.Errorf("document order = %v, want sorted by id", ids)
	}
}

func TestParseFrontmatterAndLayout(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"none", "## Events\n", []string{"1:frontmatter"}},
		{"unclosed", "---\nreputation: 1\n", []string{"1:frontmatter"}},
		{"version 2", "---\nreputation: 2\nowner: a\nupdated: 2026-01-01\n---\n", []string{"2:version"}},
		{"missing fields", "---\nreputation: 1\n---\n", []string{"1:unset", "1:unset"}},
		{"bad updated", "---\nreputation: 1\nowner: a\nupdated: 2026-13-01\n---\n", []string{"4:bad_date"}},
		{"bad owner", "---\nreputation: 1\nowner: Agent 7\nupdated: 2026-01-01\n---\n", []string{"3:bad_id"}},
		{"repeated field", "---\nreputation: 1\nowner: a\nowner: b\nupdated: 2026-01-01\n---\n", []string{"4:frontmatter"}},
		{"crlf and bom", "\uFEFF---\r\nreputation: 1\r\nowner: a\r\nupdated: 2026-01-01\r\n---\r\n## Events\r\n- 2026-01-01 · a · delivered\r\n", nil},
		{"control character", "---\nreputation: 1\nowner: a\nupdated: 2026-01-01\n---\n## Events\n- 2026-01-01 · a · delivered · 5 · \x1b[31mred\n", []string{"7:bad_line"}},
		{"bidi override", "---\nreputation: 1\nowner: a\nupdated: 2026-01-01\n---\n## Events\n- 2026-01-01 · a · delivered · 5 · \u202Egnp.exe\n", []string{"7:bad_line"}},
		{"long line", "---\nreputation: 1\nowner: a\nupdated: 2026-01-01\n---\n## Events\n- 2026-01-01 · a · delivered · 5 · " + strings.Repeat("x", MaxLineBytes) + "\n", []string{"7:bad_line"}},
		{"not utf-8", "---\nreputation: 1\nowner: a\nupdated: 2026-01-01\n---\n## Counterparties\n- a · store · \xff\n", []string{"7:bad_line"}},
		{"prose in a section", "---\nreputation: 1\nowner: a\nupdated: 2026-01-01\n---\n## Counterparties\nsome words\n### A sub-heading\n- a · store\n", []string{"7:not_a_record"}},
		{"case-insensitive section", "---\nreputation: 1\nowner: a\nupdated: 2026-01-01\n---\n## EVENTS\n- 2026-01-01 · a · delivered\n", nil},
		{"other section is prose", "---\nreputation: 1\nowner: a\nupdated: 2026-01-01\n---\n## Notes\n- anything goes here\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := mustParse(t, c.src)
			if got := codesAt(f.Issues); !slices.Equal(got, c.want) {
				t.Errorf("issues = %v, want %v\n%v", got, c.want, f.Issues)
			}
		})
	}
}

func TestParseRules(t *testing.T) {
	f := mustParse(t, fm+`## Rules
- half_life_days: 45.5
- weights: delivered 2, breached -6
- tiers: trusted 80
- spend_per_task: standard 20
- blocked: z.example, a.example
- blocked: none, m.example, a.example
`)
	if len(f.Issues) != 0 {
		t.Fatalf("issues: %v", f.Issues)
	}
	r := f.Rules
	if r.HalfLifeDays != 45.5 || r.MinEvents != 3 || r.Weights.Delivered != 2 || r.Weights.Breached != -6 || r.Weights.Late != -0.5 {
		t.Errorf("rules = %+v", r)
	}
	if r.Tiers != (Tiers{80, 50, 25}) || r.SpendPerTask != (Spend{500, 20}) {
		t.Errorf("tiers %+v spend %+v", r.Tiers, r.SpendPerTask)
	}
	if !slices.Equal(r.Blocked, []string{"a.example", "m.example", "z.example"}) {
		t.Errorf("blocked = %v", r.Blocked)
	}
	want := []RuleKey{KeyHalfLifeDays, KeyWeights, KeyTiers, KeySpendPerTask, KeyBlocked}
	if !slices.Equal(f.RulesSet, want) {
		t.Errorf("rules set = %v, want %v", f.RulesSet, want)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	bad := DefaultRules()
	bad.Weights.Late = 1
	bad.Tiers.Watch = 60
	bad.Blocked = []string{"Bad Id"}
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepted a positive late weight, tiers out of order and a bad id")
	}
}

func TestParseLimits(t *testing.T) {
	if _, err := Parse(make([]byte, MaxBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxBytes: %v", err)
	}
	if _, err := Parse([]byte(strings.Repeat("\n", MaxLines))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxLines: %v", err)
	}
	if _, err := Parse([]byte(strings.Repeat("\n", MaxLines-1))); err != nil {
		t.Errorf("at MaxLines: %v", err)
	}
}

func TestCheckID(t *testing.T) {
	for _, id := range []string{"agent:courier-12", "shop.example", "https://shop.example/orders?id=4", "ünïcode.example", strings.Repeat("a", MaxIDLen)} {
		if err := CheckID(id); err != nil {
			t.Errorf("CheckID(%q): %v", id, err)
		}
	}
	for _, id := range []string{"", "-", "Shop.example", "a b", "a,b", "a\tb", strings.Repeat("a", MaxIDLen+1), "a\u200bb"} {
		if err := CheckID(id); !errors.Is(err, ErrBadID) {
			t.Errorf("CheckID(%q) = %v, want ErrBadID", id, err)
		}
	}
}

// TestCodeReadsOldSpelling checks that a finding kept from before codes
// were snake_case, with a hyphenated code, decodes to the same constant.
func TestCodeReadsOldSpelling(t *testing.T) {
	for in, want := range map[string]Code{`"bad-date"`: CodeBadDate, `"review-due"`: CodeReviewDue, `"bad_blocked_id"`: CodeBadBlockedID, `"frontmatter"`: CodeFrontmatter} {
		var f struct {
			Code Code `json:"code"`
		}
		if err := json.Unmarshal([]byte(`{"code":`+in+`}`), &f); err != nil || f.Code != want {
			t.Errorf("%s: %q, %v; want %q", in, f.Code, err, want)
		}
	}
}
