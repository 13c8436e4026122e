package ledger

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestStarters checks each starter against the numbers the format gives,
// and that its files are clean and carry its rules.
func TestStarters(t *testing.T) {
	asOf := day(t, "2026-10-22")
	d := DefaultRules()
	for _, name := range StarterNames {
		t.Run(name, func(t *testing.T) {
			s, err := StarterFor(name, "agent:buyer-7", asOf)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Rules.Validate(); err != nil {
				t.Fatal(err)
			}
			r := s.Rules
			switch name {
			case "buying-from-stores":
				if r.HalfLifeDays != 60 || !(math.Abs(r.Weights.Late) < math.Abs(d.Weights.Late)) || !(math.Abs(r.Weights.Refunded) < math.Abs(d.Weights.Refunded)) {
					t.Errorf("want half-life 60 and cheaper late and refunded: %+v", r)
				}
			case "hiring-agent-services":
				if r.HalfLifeDays != 45 || r.MinEvents != 5 || !(r.Tiers.Trusted > d.Tiers.Trusted && r.Tiers.Standard > d.Tiers.Standard && r.Tiers.Watch > d.Tiers.Watch) {
					t.Errorf("want half-life 45, 5 events and higher tiers: %+v", r)
				}
			case "data-and-api-providers":
				if r.HalfLifeDays != 30 || r.MinEvents != 8 {
					t.Errorf("want half-life 30 and 8 events: %+v", r)
				}
			case "contractors":
				if r.HalfLifeDays != 180 {
					t.Errorf("want half-life 180: %+v", r)
				}
				for _, typ := range EventTypes {
					if !(math.Abs(r.Weights.Of(typ)) > math.Abs(d.Weights.Of(typ))) {
						t.Errorf("weight of %s is %v, not heavier than the default %v", typ, r.Weights.Of(typ), d.Weights.Of(typ))
					}
				}
			}
			if len(s.Reasons) != len(RuleKeys) {
				t.Errorf("%d reasons, want one per key", len(s.Reasons))
			}
			for _, reason := range s.Reasons {
				if reason.Why == "" {
					t.Errorf("no reason for %s", reason.Key)
				}
			}
			if len(s.Differs) == 0 {
				t.Error("a starter that differs from nothing")
			}
			for _, text := range []string{s.Text, s.EmptyFile} {
				f := mustParse(t, text)
				if got := Check(f, asOf); len(got) != 0 {
					t.Errorf("findings: %v\n%s", got, text)
				}
				if f.Rules.Block(RuleKeys) != s.RulesBlock {
					t.Errorf("the file's rules are not the rules block")
				}
			}
			if f := mustParse(t, s.EmptyFile); len(f.Events) != 0 || len(f.Counterparties) != 0 {
				t.Error("the empty file has records")
			}
			if f := mustParse(t, s.Text); len(f.Events) < 3 || !strings.Contains(s.Text, "made up") {
				t.Error("the starter has too few made-up records, or does not say they are made up")
			}
		})
	}
	if _, err := StarterFor("landlords", "", asOf); !errors.Is(err, ErrUnknownStarter) {
		t.Errorf("unknown starter: %v", err)
	}
}

func TestTemplate(t *testing.T) {
	text, err := Template(TemplateInput{Owner: "agent:buyer-7", Counterparty: "shop.example", Kind: KindStore, Categories: []string{"parts"}, AsOf: day(t, "2026-10-22")})
	if err != nil {
		t.Fatal(err)
	}
	f := mustParse(t, text)
	if len(f.Issues) != 0 || len(f.Counterparties) != 1 || f.Owner != "agent:buyer-7" || len(f.RulesSet) != len(RuleKeys) {
		t.Errorf("template: %v\n%s", f.Issues, text)
	}
	if got := codesAt(Check(f, day(t, "2026-10-22"))); len(got) != 1 || got[0] != "11:no_events" {
		t.Errorf("check of a fresh template: %v", got)
	}
	for _, in := range []TemplateInput{
		{AsOf: Date{}},
		{Counterparty: "shop.example", AsOf: day(t, "2026-10-22")},
		{Counterparty: "Shop", Kind: KindStore, AsOf: day(t, "2026-10-22")},
		{Counterparty: "shop.example", Kind: KindStore, Categories: []string{"a, b"}, AsOf: day(t, "2026-10-22")},
		{Owner: "agent 7", AsOf: day(t, "2026-10-22")},
	} {
		if _, err := Template(in); err == nil {
			t.Errorf("Template(%+v) succeeded", in)
		}
	}
}
