package ledger

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrUnknownStarter is wrapped by [StarterFor] for a name not in
// [StarterNames].
var ErrUnknownStarter = errors.New("ledger: unknown starter")

// TemplateInput is what [Template] writes into a new file. Every field is
// optional except AsOf; Kind is required when Counterparty is given.
type TemplateInput struct {
	Owner        string   // who keeps the file, like agent:buyer-7
	Counterparty string   // a first counterparty to declare
	Kind         Kind     // its kind
	Categories   []string // what the owner deals with it about
	AsOf         Date     // written as updated
}

// Template returns a new file: frontmatter, an optional first counterparty,
// an empty Events section and every rule written out at its default.
func Template(in TemplateInput) (string, error) {
	if in.AsOf.IsZero() {
		return "", errors.New("ledger: template: as_of is required")
	}
	f := &File{Version: 1, Updated: in.AsOf, Rules: DefaultRules(), RulesSet: RuleKeys}
	if in.Owner != "" {
		if err := CheckID(in.Owner); err != nil {
			return "", fmt.Errorf("ledger: template: owner: %w", err)
		}
		f.Owner = in.Owner
	}
	if in.Counterparty != "" {
		if err := CheckID(in.Counterparty); err != nil {
			return "", fmt.Errorf("ledger: template: counterparty: %w", err)
		}
		kind, err := ParseKind(string(in.Kind))
		if err != nil {
			return "", fmt.Errorf("ledger: template: %w", err)
		}
		c := Counterparty{ID: in.Counterparty, Kind: kind, Categories: []string{}}
		for _, cat := range in.Categories {
			if why := categoryProblem(cat); why != "" {
				return "", fmt.Errorf("ledger: template: category %q %s", cat, why)
			}
			c.Categories = append(c.Categories, cat)
		}
		slices.Sort(c.Categories)
		c.Categories = slices.Compact(c.Categories)
		f.Counterparties = []Counterparty{c}
	}
	return f.Canonical(), nil
}

// Starter is a complete file tuned for one kind of dealing: its rules, why
// each number was chosen, a few made-up records, the same rules with no
// records, and the rules block alone.
type Starter struct {
	Name       string       `json:"name"`
	Summary    string       `json:"summary"`
	Rules      Rules        `json:"rules"`
	Reasons    []Reason     `json:"reasons"` // one per rule key, in canonical order
	Differs    []Difference `json:"differs"` // the keys whose values differ from the defaults
	Text       string       `json:"text"`    // the starter with made-up records
	EmptyFile  string       `json:"empty_file"`
	RulesBlock string       `json:"rules_block"`
}

// Reason explains one rule value of a starter.
type Reason struct {
	Key   RuleKey `json:"key"`
	Value string  `json:"value"`
	Why   string  `json:"why"`
}

// Difference is a rule value of a starter next to the default.
type Difference struct {
	Key     RuleKey `json:"key"`
	Default string  `json:"default"`
	Value   string  `json:"value"`
}

// StarterNames lists the starters [StarterFor] knows.
var StarterNames = []string{"buying-from-stores", "hiring-agent-services", "data-and-api-providers", "contractors"}

// starterDef is a starter's fixed content. Record dates are days before
// as_of, so the made-up records always score as a recent history would.
type starterDef struct {
	summary        string
	rules          func(*Rules)
	why            map[RuleKey]string
	counterparties []Counterparty
	events         []madeUp
}

type madeUp struct {
	daysAgo int
	cp      string
	typ     EventType
	amount  float64
	note    string
}

// starters are the starters by name, built on first use, so that a
// process that makes none does not build them at start-up.
var starters = sync.OnceValue(func() map[string]starterDef {
	return map[string]starterDef{
		"buying-from-stores": {
			summary: "Frequent small orders from shops: recent orders matter most, and a late parcel or a refund costs little.",
			rules: func(r *Rules) {
				r.HalfLifeDays = 60
				r.Weights.Late, r.Weights.Refunded = -0.25, -0.25
				r.SpendPerTask = Spend{Trusted: 200, Standard: 50}
			},
			why: map[RuleKey]string{
				KeyHalfLifeDays: "60 days: with orders every week or two, a shop's last two months say more about it than last year does.",
				KeyMinEvents:    "3, the default: small orders pile up quickly, so three is enough to start reading a shop.",
				KeyReviewDays:   "30, the default: a monthly look keeps up with a file that grows every week.",
				KeyWeights:      "late and refunded at -0.25 instead of -0.5: a parcel a day late or money back for an item out of stock is ordinary in retail and should not outweigh a string of good orders; disputes, failures and breaches keep their default weight.",
				KeyTiers:        "75, 50 and 25, the defaults: small orders need no stricter lines.",
				KeySpendPerTask: "200 for trusted and 50 for standard: these are small orders, so a limit near a typical basket keeps any one bad order small; above it, ask.",
				KeyBlocked:      "none: a starter blocks no one; only the person adds ids here.",
			},
			counterparties: []Counterparty{
				{ID: "parts-shop.example", Kind: KindStore, Categories: []string{"parts", "tools"}, Note: "made-up example"},
				{ID: "hardware-store.example", Kind: KindStore, Categories: []string{"hardware"}, Note: "made-up example"},
			},
			events: []madeUp{
				{75, "parts-shop.example", Delivered, 40, ""},
				{52, "parts-shop.example", Late, 25, "made-up: two days late"},
				{30, "parts-shop.example", Delivered, 60, ""},
				{12, "parts-shop.example", Delivered, 35, ""},
				{40, "hardware-store.example", Refunded, 18, "made-up: out of stock, money back"},
				{20, "hardware-store.example", Delivered, 22, ""},
			},
		},
		"hiring-agent-services": {
			summary: "Tasks handed to other agents: services change quickly, so history fades fast, more tasks are needed before a score counts, and the tiers start higher.",
			rules: func(r *Rules) {
				r.HalfLifeDays = 45
				r.MinEvents = 5
				r.ReviewDays = 14
				r.Tiers = Tiers{Trusted: 80, Standard: 60, Watch: 35}
				r.SpendPerTask = Spend{Trusted: 100, Standard: 20}
			},
			why: map[RuleKey]string{
				KeyHalfLifeDays: "45 days: an agent service can change its model, prompts or operator overnight, so its record should fade twice as fast as the default.",
				KeyMinEvents:    "5: one or two good tasks say little about an agent; five different tasks show it is consistent.",
				KeyReviewDays:   "14: with a short half-life the file goes out of date quickly, so look at it every two weeks.",
				KeyWeights:      "the defaults: a failed task already costs twice a delivered one and a breach three times, which suits delegated work.",
				KeyTiers:        "trusted 80, standard 60, watch 35: work handed to another agent runs without the person watching, so it takes a clearly good record (60) to go ahead at all and a strong one (80) for the larger limit.",
				KeySpendPerTask: "100 for trusted and 20 for standard: delegated tasks are usually cheap, and a low limit keeps a mistaken or runaway task small.",
				KeyBlocked:      "none: a starter blocks no one; only the person adds ids here.",
			},
			counterparties: []Counterparty{
				{ID: "agent:translator-3", Kind: KindAgent, Categories: []string{"translation"}, Note: "made-up example"},
				{ID: "agent:research-9", Kind: KindAgent, Categories: []string{"research", "summaries"}, Note: "made-up example"},
			},
			events: []madeUp{
				{60, "agent:translator-3", Delivered, 8, ""},
				{44, "agent:translator-3", Delivered, 8, ""},
				{30, "agent:translator-3", Late, 8, "made-up: returned a day after the deadline"},
				{16, "agent:translator-3", Delivered, 12, ""},
				{5, "agent:translator-3", Delivered, 10, ""},
				{25, "agent:research-9", Delivered, 20, ""},
				{9, "agent:research-9", Failed, 20, "made-up: summary missed the brief"},
			},
		},
		"data-and-api-providers": {
			summary: "Data and API providers checked once per period: one event per check, a short memory, and eight checks before a score counts.",
			rules: func(r *Rules) {
				r.HalfLifeDays = 30
				r.MinEvents = 8
				r.Weights.Late = -1
				r.SpendPerTask = Spend{Trusted: 50, Standard: 10}
			},
			why: map[RuleKey]string{
				KeyHalfLifeDays: "30 days: a provider is judged on how it serves now; an outage three months ago should weigh an eighth of one today.",
				KeyMinEvents:    "8: with one event per period checked (a week, say), eight checks are two months of service, enough to see a pattern rather than a lucky week.",
				KeyReviewDays:   "30, the default: a monthly review matches the monthly billing most providers use.",
				KeyWeights:      "late at -1 instead of -0.5: for data, a slow or stale period is a real failure of the service, as bad as a dispute; the other weights keep their defaults.",
				KeyTiers:        "75, 50 and 25, the defaults: with eight events needed, the default lines already demand a steady record.",
				KeySpendPerTask: "50 for trusted and 10 for standard: calls and periods are cheap, so anything larger than a period's fee is worth a question.",
				KeyBlocked:      "none: a starter blocks no one; only the person adds ids here.",
			},
			counterparties: []Counterparty{
				{ID: "api.weather.example", Kind: KindService, Categories: []string{"weather data"}, Note: "made-up example"},
				{ID: "api.maps.example", Kind: KindService, Categories: []string{"geocoding"}, Note: "made-up example"},
			},
			events: []madeUp{
				{56, "api.weather.example", Delivered, 5, ""},
				{49, "api.weather.example", Delivered, 5, ""},
				{42, "api.weather.example", Delivered, 5, ""},
				{35, "api.weather.example", Late, 5, "made-up: data arrived six hours behind"},
				{28, "api.weather.example", Delivered, 5, ""},
				{21, "api.weather.example", Delivered, 5, ""},
				{14, "api.weather.example", Delivered, 5, ""},
				{7, "api.weather.example", Delivered, 5, ""},
				{21, "api.maps.example", Delivered, 3, ""},
				{14, "api.maps.example", Delivered, 3, ""},
				{7, "api.maps.example", Failed, 3, "made-up: outage during the weekly check"},
			},
		},
		"contractors": {
			summary: "Jobs paid in stages: a long memory, heavier weights, and a few staged events before a score counts.",
			rules: func(r *Rules) {
				r.HalfLifeDays = 180
				r.MinEvents = 4
				r.ReviewDays = 60
				r.Weights = Weights{Delivered: 2, Honored: 1.5, Resolved: 1, Late: -1, Refunded: -1, Disputed: -2, Failed: -4, Breached: -6}
				r.SpendPerTask = Spend{Trusted: 2000, Standard: 500}
			},
			why: map[RuleKey]string{
				KeyHalfLifeDays: "180 days: jobs are few and far apart, so a contractor's record has to last from one job to the next.",
				KeyMinEvents:    "4: each stage of a job is one event, so four events are one or two whole jobs.",
				KeyReviewDays:   "60: with a long half-life and few events, a review every two months is enough.",
				KeyWeights:      "every weight heavier than the default, most of them doubled (honored goes from 1 to 1.5): each stage is a large payment, so each outcome should move the score further than one small order does.",
				KeyTiers:        "75, 50 and 25, the defaults: the heavier weights already move a score faster, so the lines need not change.",
				KeySpendPerTask: "2000 for trusted and 500 for standard, per stage: stages are large, but a stage above these sums is a decision for the person.",
				KeyBlocked:      "none: a starter blocks no one; only the person adds ids here.",
			},
			counterparties: []Counterparty{
				{ID: "firm:builders-co", Kind: KindFirm, Categories: []string{"renovation"}, Note: "made-up example"},
				{ID: "firm:electric-works", Kind: KindFirm, Categories: []string{"electrical"}, Note: "made-up example"},
			},
			events: []madeUp{
				{200, "firm:builders-co", Delivered, 3000, "made-up: stage 1, demolition"},
				{150, "firm:builders-co", Late, 3000, "made-up: stage 2, three weeks late"},
				{90, "firm:builders-co", Delivered, 4000, "made-up: stage 3, fitting"},
				{40, "firm:builders-co", Honored, 0, "made-up: warranty repair done"},
				{60, "firm:electric-works", Delivered, 1500, ""},
				{20, "firm:electric-works", Disputed, 800, "made-up: invoice above the quote"},
			},
		},
	}
})

// starterProse is written between the heading and the sections of a
// starter with made-up records.
const starterProse = "Starter %q. The counterparties and events below are made up to show the format; they are not anyone's dealings.\n"

// StarterFor returns the named starter, its made-up records dated relative
// to asOf. owner, when not empty, is written into both files.
func StarterFor(name, owner string, asOf Date) (Starter, error) {
	def, ok := starters()[name]
	if !ok {
		return Starter{}, fmt.Errorf("%w %q: known starters are %v", ErrUnknownStarter, name, StarterNames)
	}
	if asOf.IsZero() {
		return Starter{}, errors.New("ledger: starter: as_of is required")
	}
	if owner != "" {
		if err := CheckID(owner); err != nil {
			return Starter{}, fmt.Errorf("ledger: starter: owner: %w", err)
		}
	}
	rules := DefaultRules()
	def.rules(&rules)
	s := Starter{Name: name, Summary: def.summary, Rules: rules, Reasons: []Reason{}, Differs: []Difference{}}
	d := DefaultRules()
	for _, k := range RuleKeys {
		v := ruleValue(rules.Line(k), k)
		s.Reasons = append(s.Reasons, Reason{Key: k, Value: v, Why: def.why[k]})
		if dv := ruleValue(d.Line(k), k); dv != v {
			s.Differs = append(s.Differs, Difference{Key: k, Default: dv, Value: v})
		}
	}
	s.RulesBlock = rules.Block(RuleKeys)
	empty := &File{Version: 1, Owner: owner, Updated: asOf, Rules: rules, RulesSet: RuleKeys}
	s.EmptyFile = empty.Canonical()
	full := *empty
	full.Counterparties = def.counterparties
	for _, m := range def.events {
		a := m.amount
		full.Events = append(full.Events, Event{Date: asOf.AddDays(-m.daysAgo), Counterparty: m.cp, Type: m.typ, Amount: &a, Note: m.note})
	}
	text := full.Canonical()
	const heading = "# REPUTATION.md\n\n"
	at := strings.Index(text, heading) + len(heading)
	s.Text = text[:at] + fmt.Sprintf(starterProse, name) + "\n" + text[at:]
	return s, nil
}
