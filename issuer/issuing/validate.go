package issuing

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

func (s *Subject) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidSubject, fmt.Sprintf(format, a...))
	}
	switch {
	case s.Key == 0:
		return bad("the subject has no key")
	case len(s.Memories) > MaxInputMemories:
		return bad("%d memories; at most %d are loaded", len(s.Memories), MaxInputMemories)
	case len(s.Events) > MaxInputEvents:
		return bad("%d events; at most %d are loaded", len(s.Events), MaxInputEvents)
	case len(s.Capabilities) > MaxInputCapabilities:
		return bad("%d capabilities; at most %d", len(s.Capabilities), MaxInputCapabilities)
	}
	switch s.TrustLevel {
	case "", reputation.TrustNew, reputation.TrustObserved, reputation.TrustTrusted, reputation.TrustHighTrust:
	default:
		return bad("unknown trust level %q", clip(string(s.TrustLevel)))
	}
	if s.ReputationScore < -reputation.ScoreBound || s.ReputationScore > reputation.ScoreBound {
		return bad("reputation score %v is outside ±100", s.ReputationScore)
	}
	for _, c := range s.Capabilities {
		if !dated(c.DeclaredAt) {
			return bad("capability %q has no declaration time from 1970 on", clip(c.Name))
		}
		if !term(c.Name) {
			return bad("capability %q is not a non-blank term of at most %d bytes", clip(c.Name), MaxTextLen)
		}
	}
	mems := make(map[Key]*Memory, len(s.Memories))
	for i := range s.Memories {
		m := &s.Memories[i]
		if m.Key == 0 || mems[m.Key] != nil {
			return bad("memory key %d is zero or repeated", m.Key)
		}
		mems[m.Key] = m
		if !dated(m.CreatedAt) {
			return bad("memory %d has no creation time from 1970 on", m.Key)
		}
		if m.Visibility != MemoryPublic && m.Visibility != MemoryPrivate {
			return bad("memory %d: unknown visibility %q", m.Key, m.Visibility)
		}
		if _, err := issuer.ParseMemoryStatus(string(m.Status)); err != nil {
			return bad("memory %d: %v", m.Key, err)
		}
		if m.Visibility == MemoryPublic && !strings.HasPrefix(string(m.PublicID), "mem_") {
			return bad("memory %d: public id %q", m.Key, clip(string(m.PublicID)))
		}
		if m.AppliesTo.Skill != "" && !term(m.AppliesTo.Skill) {
			return bad("memory %d: skill is not a term of at most %d bytes", m.Key, MaxTextLen)
		}
		if err := checkContext(m.AppliesTo.Context); err != nil {
			return bad("memory %d: %v", m.Key, err)
		}
		if m.ContentHash != "" && !evidence.ValidContentHash(m.ContentHash) {
			return bad("memory %d: content hash is not sha256: and 64 lower-case hex digits", m.Key)
		}
		for _, l := range m.Links {
			switch l.Kind {
			case issuer.LinkDerivedFrom, issuer.LinkExtends, issuer.LinkSupersedes, issuer.LinkContradicts:
			default:
				return bad("memory %d: unknown link kind %q", m.Key, l.Kind)
			}
			if l.Target.Key == 0 {
				return bad("memory %d: a %s link without a target", m.Key, l.Kind)
			}
		}
	}
	events := make(map[Key]*Event, len(s.Events))
	for i := range s.Events {
		e := &s.Events[i]
		if e.Key == 0 || events[e.Key] != nil {
			return bad("event key %d is zero or repeated", e.Key)
		}
		events[e.Key] = e
	}
	for i := range s.Events {
		e := &s.Events[i]
		if mems[e.Memory] == nil {
			return bad("event %d names memory %d, which is not the subject's", e.Key, e.Memory)
		}
		if !dated(e.At) {
			return bad("event %d has no time from 1970 on", e.Key)
		}
		if e.Actor == 0 {
			return bad("event %d has no actor", e.Key)
		}
		if (e.Kind == EventOutcome) != (e.Outcome != "") {
			return bad("event %d: an outcome is required on outcome events and only there", e.Key)
		}
		switch e.Kind {
		case EventConsumption, EventCorroboration, EventContradiction:
		case EventOutcome:
			switch e.Outcome {
			case evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain:
			default:
				return bad("event %d: unknown outcome %q", e.Key, e.Outcome)
			}
		case EventResolution:
			c := events[e.Resolves]
			if c == nil || c.Kind != EventContradiction || c.Actor != e.Actor || c.Memory != e.Memory || e.At.Before(c.At) {
				return bad("event %d resolves no earlier contradiction of its actor on its memory", e.Key)
			}
		case EventRevision, EventDeprecation, EventWithdrawal:
			if e.Actor != s.Key {
				return bad("event %d: a %s is the subject's own", e.Key, e.Kind)
			}
		default:
			return bad("event %d: unknown kind %q", e.Key, e.Kind)
		}
		if e.Kind != EventResolution && e.Resolves != 0 {
			return bad("event %d: only a resolution resolves", e.Key)
		}
		if err := checkContext(e.Context); err != nil {
			return bad("event %d: %v", e.Key, err)
		}
	}
	byAgent := map[Key][]OwnerBinding{}
	for _, b := range s.Owners {
		if b.Agent == 0 || b.Operator == 0 || (!b.Until.IsZero() && !b.Until.After(b.From)) {
			return bad("owner binding of agent %d to operator %d is malformed", b.Agent, b.Operator)
		}
		byAgent[b.Agent] = append(byAgent[b.Agent], b)
	}
	for agent, bs := range byAgent {
		slices.SortFunc(bs, func(x, y OwnerBinding) int { return x.From.Compare(y.From) })
		for i := 1; i < len(bs); i++ {
			if prev := bs[i-1]; prev.Until.IsZero() || prev.Until.After(bs[i].From) {
				return bad("owner bindings of agent %d overlap", agent)
			}
		}
	}
	return nil
}

// dated reports whether t is a time evidence can be dated by: its UTC
// year is from 1970 to 9999.
func dated(t time.Time) bool { return !t.Before(firstDated) && t.Before(afterDated) }

var (
	firstDated = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	afterDated = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

func term(s string) bool {
	return s != "" && len(s) <= MaxTextLen && utf8.ValidString(s) && evidence.NormalizeLabel(s) != ""
}

func checkContext(c evidence.Context) error {
	for i, v := range c.Values() {
		if len(v) > MaxTextLen || !utf8.ValidString(v) {
			return fmt.Errorf("context %s is not UTF-8 of at most %d bytes", evidence.Dimensions[i], MaxTextLen)
		}
	}
	return nil
}

// cleanContext leaves out blank labels, which a record cannot carry.
func cleanContext(c evidence.Context) evidence.Context {
	for i, v := range c.Values() {
		if v != "" && evidence.NormalizeLabel(v) == "" {
			c.Set(evidence.Dimensions[i], "")
		}
	}
	return c
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
