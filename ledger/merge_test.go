package ledger

import (
	"slices"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	a, b := load(t, "merge-a.md"), load(t, "merge-b.md")
	m, err := Merge(a, b, SideA)
	if err != nil {
		t.Fatal(err)
	}
	f := m.File
	if f.Owner != "agent:buyer-7" || f.Updated.String() != "2026-10-22" {
		t.Errorf("owner %q updated %s", f.Owner, f.Updated)
	}
	var ids []string
	for _, c := range f.Counterparties {
		ids = append(ids, c.ID+"/"+string(c.Kind)+"/"+strings.Join(c.Categories, "+"))
	}
	if want := []string{"agent:courier-12/agent/delivery", "api.data.example/service/data", "shop.example/store/parts+tools"}; !slices.Equal(ids, want) {
		t.Errorf("counterparties %v, want %v", ids, want)
	}
	// Two outcomes on 2026-10-05 in a survive; b's copy of one of them
	// does not add a third.
	if len(f.Events) != 5 {
		t.Errorf("%d events, want 5:\n%s", len(f.Events), m.Text)
	}
	for i := 1; i < len(f.Events); i++ {
		if f.Events[i].Date.Before(f.Events[i-1].Date) {
			t.Fatalf("events not sorted by date:\n%s", m.Text)
		}
	}
	// a's rules win; the blocked lists join.
	if f.Rules.HalfLifeDays != 60 || f.Rules.MinEvents != 3 || m.RulesFrom != SideA {
		t.Errorf("rules %+v from %s", f.Rules, m.RulesFrom)
	}
	if !slices.Equal(f.Rules.Blocked, []string{"fraud.example", "scam.example"}) {
		t.Errorf("blocked %v", f.Rules.Blocked)
	}
	var got []string
	for _, c := range m.Conflicts {
		got = append(got, c.What+"|"+c.Counterparty+"|"+c.Key+"|"+c.A+"|"+c.B+"|"+string(c.Kept))
	}
	want := []string{
		"owner|||agent:buyer-7|agent:buyer-8|a",
		"kind|shop.example||store|service|a",
		"note|shop.example||main parts supplier|parts and tools|a",
		"amount|shop.example|2026-10-03 delivered|120|125|a",
		"rule||half_life_days|60|90|a",
	}
	if !slices.Equal(got, want) {
		t.Errorf("conflicts:\n got %v\nwant %v", got, want)
	}
	// The merged text is canonical and clean.
	g := mustParse(t, m.Text)
	if len(g.Issues) != 0 || g.Canonical() != m.Text {
		t.Errorf("merged text is not clean canonical text: %v", g.Issues)
	}
}

func TestMergePreferB(t *testing.T) {
	a, b := load(t, "merge-a.md"), load(t, "merge-b.md")
	m, err := Merge(a, b, SideB)
	if err != nil {
		t.Fatal(err)
	}
	if m.File.Owner != "agent:buyer-8" || m.File.Rules.MinEvents != 5 || m.RulesFrom != SideB {
		t.Errorf("owner %q min_events %d from %s", m.File.Owner, m.File.Rules.MinEvents, m.RulesFrom)
	}
	for _, c := range m.Conflicts {
		if c.Kept != SideB {
			t.Errorf("conflict kept %s: %v", c.Kept, c)
		}
		if c.What == "owner" && (c.A != "agent:buyer-7" || c.B != "agent:buyer-8") {
			t.Errorf("conflict sides swapped: %v", c)
		}
	}
}

func TestMergeRulesFromOtherWhenPreferredSetsNone(t *testing.T) {
	a := mustParse(t, fm+"## Rules\n- blocked: x.example\n")
	b := mustParse(t, fm+"## Rules\n- min_events: 7\n")
	m, err := Merge(a, b, SideA)
	if err != nil {
		t.Fatal(err)
	}
	if m.RulesFrom != SideB || m.File.Rules.MinEvents != 7 || !slices.Equal(m.File.Rules.Blocked, []string{"x.example"}) {
		t.Errorf("from %s min_events %d blocked %v", m.RulesFrom, m.File.Rules.MinEvents, m.File.Rules.Blocked)
	}
	if !slices.Equal(m.File.RulesSet, []RuleKey{KeyMinEvents, KeyBlocked}) {
		t.Errorf("rules set %v", m.File.RulesSet)
	}
	if _, err := Merge(a, b, "c"); err == nil {
		t.Error("Merge accepted prefer c")
	}
}
