package ledger

import (
	"fmt"
	"slices"
)

// Side names one of the two files given to [Merge].
type Side string

// The two sides of a merge.
const (
	SideA Side = "a"
	SideB Side = "b"
)

// Conflict is one place where the two files of a merge disagree, and which
// side's value the merged file kept.
type Conflict struct {
	What         string `json:"what"` // owner, kind, note, amount, event note or rule
	Counterparty string `json:"counterparty,omitempty"`
	Key          string `json:"key,omitempty"` // the rule key, or the event's date and type
	A            string `json:"a"`
	B            string `json:"b"`
	Kept         Side   `json:"kept"`
}

// String describes the conflict in one line.
func (c Conflict) String() string {
	where := c.What
	if c.Counterparty != "" {
		where += " of " + c.Counterparty
	}
	if c.Key != "" {
		where += " (" + c.Key + ")"
	}
	return fmt.Sprintf("%s: a has %q, b has %q; kept %s", where, c.A, c.B, c.Kept)
}

// Merged is the result of [Merge].
type Merged struct {
	File      *File      `json:"-"`
	Text      string     `json:"text"` // the merged file's canonical text
	Conflicts []Conflict `json:"conflicts"`
	RulesFrom Side       `json:"rules_from,omitempty"` // the side whose rules were kept; empty when neither set any
}

// Merge joins two files kept by the same owner. Counterparties join by id
// with their categories joined; events join by counterparty, date and type,
// and where one file has more events under the same key than the other the
// larger number is kept, so two outcomes on one day survive while a copy of
// the same outcome does not. The preferred side's owner, kinds, notes and
// amounts win a conflict, and its rules are kept unless it sets none (the
// blocked list aside), in which case the other side's are. The blocked
// lists of both are joined so that no block is lost. Every disagreement is
// returned as a [Conflict].
func Merge(a, b *File, prefer Side) (Merged, error) {
	if prefer != SideA && prefer != SideB {
		return Merged{}, fmt.Errorf("ledger: merge: prefer must be %q or %q, not %q", SideA, SideB, prefer)
	}
	p, o, other := a, b, SideB
	if prefer == SideB {
		p, o, other = b, a, SideA
	}
	m := Merged{Conflicts: []Conflict{}}
	conflict := func(what, cp, key, pv, ov string, kept Side) {
		c := Conflict{What: what, Counterparty: cp, Key: key, A: pv, B: ov, Kept: kept}
		if prefer == SideB {
			c.A, c.B = ov, pv
		}
		m.Conflicts = append(m.Conflicts, c)
	}
	// pick returns the preferred value, the other when the preferred is
	// empty, and reports a conflict when both are set and differ.
	pick := func(what, cp, key, pv, ov string) string {
		switch {
		case pv == "":
			return ov
		case ov != "" && ov != pv:
			conflict(what, cp, key, pv, ov, prefer)
		}
		return pv
	}

	out := &File{Version: 1}
	out.Owner = pick("owner", "", "", p.Owner, o.Owner)
	out.Updated = p.Updated
	if o.Updated.After(out.Updated) {
		out.Updated = o.Updated
	}

	byID := map[string]int{}
	for _, side := range []*File{p, o} {
		for _, c := range side.Counterparties {
			i, ok := byID[c.ID]
			if !ok {
				byID[c.ID] = len(out.Counterparties)
				c.Categories = slices.Clone(c.Categories)
				c.Line = 0
				out.Counterparties = append(out.Counterparties, c)
				continue
			}
			have := &out.Counterparties[i]
			have.Kind = Kind(pick("kind", c.ID, "", string(have.Kind), string(c.Kind)))
			have.Note = pick("note", c.ID, "", have.Note, c.Note)
			have.Categories = append(have.Categories, c.Categories...)
			slices.Sort(have.Categories)
			have.Categories = slices.Compact(have.Categories)
		}
	}

	type key struct {
		cp   string
		date Date
		typ  EventType
	}
	group := func(f *File) (map[key][]Event, []key) {
		g := map[key][]Event{}
		var order []key
		for _, e := range f.Events {
			k := key{e.Counterparty, e.Date, e.Type}
			if _, ok := g[k]; !ok {
				order = append(order, k)
			}
			e.Line = 0
			g[k] = append(g[k], e)
		}
		return g, order
	}
	pe, porder := group(p)
	oe, oorder := group(o)
	for _, k := range append(porder, oorder...) {
		ps, os := pe[k], oe[k]
		if ps == nil && os == nil {
			continue // already merged
		}
		for i := range max(len(ps), len(os)) {
			switch {
			case i >= len(os):
				out.Events = append(out.Events, ps[i])
			case i >= len(ps):
				out.Events = append(out.Events, os[i])
			default:
				e := ps[i]
				where := e.Date.String() + " " + string(e.Type)
				e.Note = pick("event note", k.cp, where, e.Note, os[i].Note)
				switch pa, oa := e.Amount, os[i].Amount; {
				case pa == nil:
					e.Amount = oa
				case oa != nil && *oa != *pa:
					conflict("amount", k.cp, where, num(*pa), num(*oa), prefer)
				}
				out.Events = append(out.Events, e)
			}
		}
		delete(pe, k)
		delete(oe, k)
	}
	out.Events = sortedEvents(out.Events)
	out.Counterparties = sortedCounterparties(out.Counterparties)

	src, from := p, prefer
	if !setsRules(p) {
		src, from = o, other
	}
	if setsRules(src) {
		m.RulesFrom = from
		if src == p && setsRules(o) {
			for _, k := range RuleKeys {
				if k == KeyBlocked || !slices.Contains(p.RulesSet, k) || !slices.Contains(o.RulesSet, k) {
					continue
				}
				if pl, ol := p.Rules.Line(k), o.Rules.Line(k); pl != ol {
					conflict("rule", "", string(k), ruleValue(pl, k), ruleValue(ol, k), prefer)
				}
			}
		}
	}
	out.Rules = src.Rules
	out.Rules.Blocked = append(slices.Clone(a.Rules.Blocked), b.Rules.Blocked...)
	slices.Sort(out.Rules.Blocked)
	out.Rules.Blocked = slices.Compact(out.Rules.Blocked)
	for _, k := range src.RulesSet {
		if k != KeyBlocked {
			out.RulesSet = append(out.RulesSet, k)
		}
	}
	if len(out.Rules.Blocked) > 0 || slices.Contains(a.RulesSet, KeyBlocked) || slices.Contains(b.RulesSet, KeyBlocked) {
		out.RulesSet = append(out.RulesSet, KeyBlocked)
	}
	m.File = out
	m.Text = out.Canonical()
	return m, nil
}

// setsRules reports whether f sets any rule other than the blocked list.
func setsRules(f *File) bool {
	return slices.ContainsFunc(f.RulesSet, func(k RuleKey) bool { return k != KeyBlocked })
}

// ruleValue strips "- key: " from a canonical rule line.
func ruleValue(line string, k RuleKey) string { return line[len("- ")+len(k)+len(": "):] }
