package trustgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/remnant/passportkit/internal/cjson"
)

// Bounds of a signal query (SPEC.md §15.4).
const (
	// MaxSignalQueryBytes is the largest signal query, in bytes.
	MaxSignalQueryBytes = 1 << 20
	// MaxSignalItems is the most keys, vouchers in all, signals, renewals
	// or confirmations a signal query may hold, each counted apart. It
	// keeps [Groups], whose fixed point may take a pass per key, well
	// under a second on hostile input.
	MaxSignalItems = 1_000
)

// ErrBadSignal is wrapped for a signal query that is malformed: not
// strict JSON, a member unknown, missing, null or of the wrong type, or a
// rule or signal kind that does not exist.
var ErrBadSignal = errors.New("trustgraph: bad signal query")

// The rules a signal query can apply, as its "kind" names them.
const (
	RuleFloor  = "floor"  // the cold-start floor ([ReaderFloor])
	RuleDecay  = "decay"  // one signal's decay factor ([Decay])
	RuleClock  = "clock"  // a confirmer's clock after renewals ([Clock])
	RuleGroups = "groups" // diversity groups and a post's tally ([Groups], [Count])
	RuleStatus = "status" // a post's status ([PostStatus])
)

// SignalQuery is one signal rule of SPEC.md §15.4 with its input, as
// [ParseSignalQuery] reads it. Only the fields of its Rule are set.
type SignalQuery struct {
	// Rule is one of RuleFloor, RuleDecay, RuleClock, RuleGroups and
	// RuleStatus.
	Rule string
	// AgeDays is the key's age (floor) or the signal's age (decay).
	AgeDays float64
	// FloorCap is the floor's cap (floor); DefaultFloorCap when absent.
	FloorCap float64
	// GraphCarriesWeight reports that the reader's graph carries weight,
	// so that the floor is 0 (floor); false when absent.
	GraphCarriesWeight bool
	// Kind is the signal's kind (decay).
	Kind SignalKind
	// ConfirmedDay, RenewalDays and AsOf are the clock's input.
	ConfirmedDay float64
	RenewalDays  []float64
	AsOf         float64
	// Keys, Author and Signals are the groups' input.
	Keys    []Key
	Author  string
	Signals []Signal
	// Contested and Confirmations are the status' input.
	Contested     bool
	Confirmations []Confirmation
}

// SignalResult is what a signal query computes. Its JSON form holds
// "kind" and the members of its rule only: "floor", "decay", "clock",
// "groups" and "tally", or "status".
type SignalResult struct {
	Rule   string
	Floor  float64
	Decay  float64
	Clock  float64
	Groups map[string]string
	Tally  Tally
	Status Status
}

// MarshalJSON writes "kind" and the members of the result's rule.
func (r SignalResult) MarshalJSON() ([]byte, error) {
	out := map[string]any{"kind": r.Rule}
	switch r.Rule {
	case RuleFloor:
		out["floor"] = r.Floor
	case RuleDecay:
		out["decay"] = r.Decay
	case RuleClock:
		out["clock"] = r.Clock
	case RuleGroups:
		groups := r.Groups
		if groups == nil {
			groups = map[string]string{}
		}
		out["groups"], out["tally"] = groups, r.Tally
	case RuleStatus:
		out["status"] = r.Status
	}
	return json.Marshal(out)
}

// The JSON shapes of a query; member names are those of SPEC.md §15.4.
type (
	queryJSON struct {
		Kind  *string         `json:"kind"`
		Input json.RawMessage `json:"input"`
		// A conformance case's other members, so that a case file reads as
		// a query; they are not read.
		Name        json.RawMessage `json:"name"`
		Rule        json.RawMessage `json:"rule"`
		Description json.RawMessage `json:"description"`
		Expect      json.RawMessage `json:"expect"`
	}
	floorJSON struct {
		AgeDays            *float64 `json:"ageDays"`
		FloorCap           *float64 `json:"floorCap"`
		GraphCarriesWeight bool     `json:"graphCarriesWeight"`
	}
	decayJSON struct {
		Kind    *SignalKind `json:"kind"`
		AgeDays *float64    `json:"ageDays"`
	}
	clockJSON struct {
		ConfirmedDay *float64  `json:"confirmedDay"`
		RenewalDays  []float64 `json:"renewalDays"`
		AsOf         *float64  `json:"asOf"`
	}
	keyJSON struct {
		ID        *string  `json:"id"`
		Owner     *string  `json:"owner"`
		VouchedBy []string `json:"vouchedBy"`
	}
	signalJSON struct {
		Key    *string  `json:"key"`
		Weight *float64 `json:"weight"`
	}
	groupsJSON struct {
		Keys    []keyJSON    `json:"keys"`
		Author  *string      `json:"author"`
		Signals []signalJSON `json:"signals"`
	}
	confirmationJSON struct {
		Weight *float64 `json:"weight"`
		Decay  *float64 `json:"decay"`
		Accept bool     `json:"accept"`
	}
	statusJSON struct {
		Contested     bool               `json:"contested"`
		Confirmations []confirmationJSON `json:"confirmations"`
	}
)

// ParseSignalQuery reads a signal query (SPEC.md §15.4): a JSON object
// {"kind": RULE, "input": {...}} whose input holds the members of its rule,
// as the conformance vectors carry them; a vector file reads as it stands
// (its "name", "rule", "description" and "expect" are allowed and not
// read). The JSON must be strict (the project's parser: no duplicate
// member, valid UTF-8, numbers within range, nesting of at most 8, nothing
// after the object); member names are matched exactly, and unknown,
// missing or null members are refused. Faults wrap ErrTooLarge,
// ErrBadSignal or ErrBadID; the floor cap's range is checked by
// [SignalQuery.Eval].
func ParseSignalQuery(b []byte) (SignalQuery, error) {
	if len(b) > MaxSignalQueryBytes {
		return SignalQuery{}, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(b), MaxSignalQueryBytes)
	}
	doc, err := cjson.Parse(b, cjson.Options{MaxDepth: 8})
	if err != nil {
		return SignalQuery{}, fmt.Errorf("%w: %v", ErrBadSignal, err)
	}
	for k := range doc.Root().Members() {
		if name, _ := k.Text(); !queryNames[name] {
			return SignalQuery{}, fmt.Errorf("%w: unknown member %q", ErrBadSignal, truncate(name))
		}
	}
	if in, ok := doc.Root().Get("input"); ok {
		if err := exactNames(in); err != nil {
			return SignalQuery{}, err
		}
	}
	var top queryJSON
	if err := strictDecode(b, &top); err != nil {
		return SignalQuery{}, err
	}
	if top.Kind == nil || top.Input == nil {
		return SignalQuery{}, fmt.Errorf("%w: a signal query is {\"kind\": RULE, \"input\": {...}}", ErrBadSignal)
	}
	q := SignalQuery{Rule: *top.Kind}
	missing := func(what string) error {
		return fmt.Errorf("%w: %s input: %s is missing", ErrBadSignal, q.Rule, what)
	}
	switch q.Rule {
	case RuleFloor:
		var in floorJSON
		if err := strictDecode(top.Input, &in); err != nil {
			return SignalQuery{}, err
		}
		if in.AgeDays == nil {
			return SignalQuery{}, missing("ageDays")
		}
		q.AgeDays, q.FloorCap, q.GraphCarriesWeight = *in.AgeDays, DefaultFloorCap, in.GraphCarriesWeight
		if in.FloorCap != nil {
			q.FloorCap = *in.FloorCap
		}
	case RuleDecay:
		var in decayJSON
		if err := strictDecode(top.Input, &in); err != nil {
			return SignalQuery{}, err
		}
		if in.Kind == nil || in.AgeDays == nil {
			return SignalQuery{}, missing("kind or ageDays")
		}
		switch *in.Kind {
		case Vote, Accept, Confirm, Use, Cite:
		default:
			return SignalQuery{}, fmt.Errorf("%w: signal kind %q is not vote, accept, confirm, use or cite", ErrBadSignal, truncate(string(*in.Kind)))
		}
		q.Kind, q.AgeDays = *in.Kind, *in.AgeDays
	case RuleClock:
		var in clockJSON
		if err := strictDecode(top.Input, &in); err != nil {
			return SignalQuery{}, err
		}
		if in.ConfirmedDay == nil || in.AsOf == nil {
			return SignalQuery{}, missing("confirmedDay or asOf")
		}
		if len(in.RenewalDays) > MaxSignalItems {
			return SignalQuery{}, fmt.Errorf("%w: %d renewals, the limit is %d", ErrTooLarge, len(in.RenewalDays), MaxSignalItems)
		}
		q.ConfirmedDay, q.RenewalDays, q.AsOf = *in.ConfirmedDay, in.RenewalDays, *in.AsOf
	case RuleGroups:
		var in groupsJSON
		if err := strictDecode(top.Input, &in); err != nil {
			return SignalQuery{}, err
		}
		if in.Author == nil {
			return SignalQuery{}, missing("author")
		}
		vouchers := 0
		for _, k := range in.Keys {
			vouchers += len(k.VouchedBy)
		}
		if len(in.Keys) > MaxSignalItems || vouchers > MaxSignalItems || len(in.Signals) > MaxSignalItems {
			return SignalQuery{}, fmt.Errorf("%w: %d keys, %d vouchers, %d signals; the limit of each is %d", ErrTooLarge, len(in.Keys), vouchers, len(in.Signals), MaxSignalItems)
		}
		if err := checkID(*in.Author); err != nil {
			return SignalQuery{}, err
		}
		q.Author = *in.Author
		for i, k := range in.Keys {
			if k.ID == nil {
				return SignalQuery{}, missing(fmt.Sprintf("keys[%d].id", i))
			}
			key := Key{ID: *k.ID, VouchedBy: k.VouchedBy}
			if k.Owner != nil {
				key.Owner = *k.Owner
				if err := checkID(key.Owner); err != nil {
					return SignalQuery{}, err
				}
			}
			for _, id := range append([]string{key.ID}, key.VouchedBy...) {
				if err := checkID(id); err != nil {
					return SignalQuery{}, err
				}
			}
			q.Keys = append(q.Keys, key)
		}
		for i, s := range in.Signals {
			if s.Key == nil || s.Weight == nil {
				return SignalQuery{}, missing(fmt.Sprintf("signals[%d].key or weight", i))
			}
			if err := checkID(*s.Key); err != nil {
				return SignalQuery{}, err
			}
			q.Signals = append(q.Signals, Signal{Key: *s.Key, Weight: *s.Weight})
		}
	case RuleStatus:
		var in statusJSON
		if err := strictDecode(top.Input, &in); err != nil {
			return SignalQuery{}, err
		}
		if len(in.Confirmations) > MaxSignalItems {
			return SignalQuery{}, fmt.Errorf("%w: %d confirmations, the limit is %d", ErrTooLarge, len(in.Confirmations), MaxSignalItems)
		}
		q.Contested = in.Contested
		for i, c := range in.Confirmations {
			if c.Weight == nil || c.Decay == nil {
				return SignalQuery{}, missing(fmt.Sprintf("confirmations[%d].weight or decay", i))
			}
			q.Confirmations = append(q.Confirmations, Confirmation{Weight: *c.Weight, Decay: *c.Decay, Accept: c.Accept})
		}
	default:
		return SignalQuery{}, fmt.Errorf("%w: kind %q is not floor, decay, clock, groups or status", ErrBadSignal, truncate(q.Rule))
	}
	return q, nil
}

// Eval applies the query's rule to its input. Only the floor can fail: a
// cap outside [0, VouchTrust) wraps ErrBadOption.
func (q SignalQuery) Eval() (SignalResult, error) {
	r := SignalResult{Rule: q.Rule}
	switch q.Rule {
	case RuleFloor:
		f, err := ReaderFloor(q.AgeDays, q.FloorCap, q.GraphCarriesWeight)
		if err != nil {
			return SignalResult{}, err
		}
		r.Floor = f
	case RuleDecay:
		r.Decay = Decay(q.Kind, q.AgeDays)
	case RuleClock:
		r.Clock = Clock(q.ConfirmedDay, q.RenewalDays, q.AsOf)
	case RuleGroups:
		r.Groups = Groups(q.Keys)
		r.Tally = Count(q.Author, q.Signals, r.Groups)
	case RuleStatus:
		r.Status = PostStatus(q.Contested, q.Confirmations)
	default:
		return SignalResult{}, fmt.Errorf("%w: kind %q is not floor, decay, clock, groups or status", ErrBadSignal, truncate(q.Rule))
	}
	return r, nil
}

// queryNames are the member names a query may use, spelled exactly.
var queryNames = map[string]bool{"kind": true, "input": true, "name": true, "rule": true, "description": true, "expect": true}

// inputNames are the member names an input may use, spelled exactly.
var inputNames = map[string]bool{
	"ageDays": true, "floorCap": true, "graphCarriesWeight": true, "kind": true, "confirmedDay": true, "renewalDays": true, "asOf": true,
	"keys": true, "id": true, "owner": true, "vouchedBy": true, "author": true, "signals": true, "key": true,
	"weight": true, "contested": true, "confirmations": true, "decay": true, "accept": true,
}

// exactNames refuses a member name that is not one of inputNames exactly,
// and a member whose value is null, anywhere in v: encoding/json would
// match names regardless of case and read null as "absent".
func exactNames(v cjson.Value) error {
	for k, val := range v.Members() {
		name, _ := k.Text()
		if !inputNames[name] {
			return fmt.Errorf("%w: unknown member %q", ErrBadSignal, truncate(name))
		}
		if val.Kind() == cjson.Null {
			return fmt.Errorf("%w: member %q is null", ErrBadSignal, truncate(name))
		}
		if err := exactNames(val); err != nil {
			return err
		}
	}
	for e := range v.Elements() {
		if err := exactNames(e); err != nil {
			return err
		}
	}
	return nil
}

// strictDecode binds one JSON object (already checked by cjson) to v,
// refusing unknown members and null where a value is required.
func strictDecode(b []byte, v any) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return fmt.Errorf("%w: null where an object is required", ErrBadSignal)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignal, err)
	}
	return nil
}

// checkID refuses an empty or over-long id.
func checkID(id string) error {
	if id == "" || len(id) > MaxIDBytes {
		return fmt.Errorf("%w: an id is 1 to %d bytes", ErrBadID, MaxIDBytes)
	}
	return nil
}
