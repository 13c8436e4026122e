package trustgraph

import (
	"fmt"
	"math"
	"slices"
)

// Policy values of ADR 0019 §2.3–§2.5 and §3.1 (SPEC.md §15.4).
const (
	// FloorStartDays is the key age below which the cold-start floor is 0.
	FloorStartDays = 7
	// FloorFullDays is the key age at which the floor reaches its cap.
	FloorFullDays = 30
	// HalfLifeDays is the half-life of confirmations, accepts, uses and
	// citations.
	HalfLifeDays = 180
	// VoteHalfLifeDays is the half-life of votes.
	VoteHalfLifeDays = 30
	// RenewalDays is the least time between two counted renewals by one
	// confirmer of one post.
	RenewalDays = 30
	// LiveFactor is the decay factor below which a signal has decayed for
	// the status: two half-lives.
	LiveFactor = 0.25
)

// VouchTrust is the trust one vouch gives at the first step of the default
// propagation from a one-member trust set to a node with one out-edge:
// (1−d)·d at d = 0.85. [Floor]'s cap must stay below it.
const VouchTrust = (1 - DefaultDamping) * DefaultDamping

// DefaultFloorCap is the default cap of the cold-start floor: a tenth of
// VouchTrust.
const DefaultFloorCap = VouchTrust / 10

// Floor returns the cold-start floor of a key first seen ageDays ago: 0
// below FloorStartDays, rising linearly to floorCap at FloorFullDays, and
// floorCap after. floorCap must be in [0, VouchTrust). No proof-of-work
// bonus is added: nothing in this project measures proof of work.
func Floor(ageDays, floorCap float64) (float64, error) {
	if math.IsNaN(floorCap) || floorCap < 0 || floorCap >= VouchTrust {
		return 0, fmt.Errorf("%w: floor cap %v is not in [0, %v)", ErrBadOption, floorCap, VouchTrust)
	}
	if math.IsNaN(ageDays) {
		return 0, fmt.Errorf("%w: age is NaN", ErrBadOption)
	}
	switch {
	case ageDays < FloorStartDays:
		return 0, nil
	case ageDays >= FloorFullDays:
		return floorCap, nil
	}
	return floorCap * (ageDays - FloorStartDays) / (FloorFullDays - FloorStartDays), nil
}

// ReaderFloor returns the floor a reader adds to the propagated trust of a
// key first seen ageDays ago: [Floor] while the reader's graph carries no
// weight, and 0 once it does, that is once its propagation gives a
// positive score to a key that is not the reader's own (SPEC.md §15.4).
// The arguments are checked as [Floor] checks them either way.
func ReaderFloor(ageDays, floorCap float64, graphCarriesWeight bool) (float64, error) {
	f, err := Floor(ageDays, floorCap)
	if err != nil || graphCarriesWeight {
		return 0, err
	}
	return f, nil
}

// SignalKind is the kind of a signal on a post.
type SignalKind string

// The signal kinds that carry weight.
const (
	Vote    SignalKind = "vote"
	Accept  SignalKind = "accept"
	Confirm SignalKind = "confirm" // a confirmation with evidence
	Use     SignalKind = "use"
	Cite    SignalKind = "cite"
)

// Decay returns 2^(−ageDays/h), h being VoteHalfLifeDays for votes and
// HalfLifeDays for the other kinds. A negative age (a signal from the
// future) decays as age 0.
func Decay(kind SignalKind, ageDays float64) float64 {
	h := float64(HalfLifeDays)
	if kind == Vote {
		h = VoteHalfLifeDays
	}
	return math.Exp2(-max(ageDays, 0) / h)
}

// Clock returns the day a confirmer's decay clock on a post starts from:
// the confirmation day, or the latest counted renewal. Renewals are taken
// in day order; one counts when it is on or after the confirmation and at
// least RenewalDays after the last counted renewal (the first after the
// confirmation always counts). Renewals after asOf are not seen.
func Clock(confirmedDay float64, renewalDays []float64, asOf float64) float64 {
	r := slices.Clone(renewalDays)
	slices.Sort(r)
	clock := confirmedDay
	last := math.Inf(-1)
	for _, d := range r {
		if d < confirmedDay || d > asOf {
			continue
		}
		if d-last >= RenewalDays {
			last, clock = d, d
		}
	}
	return clock
}

// Key describes a key for grouping (ADR 0019 §2.4).
type Key struct {
	ID string
	// Owner is the owner the key declares, or "". Declared owners only
	// merge groups, so they can lower weight, never add it.
	Owner string
	// VouchedBy lists the keys that vouch for it.
	VouchedBy []string
}

// Groups assigns each key a group: keys declaring the same owner share one;
// a key whose vouchers all belong to one group (one voucher included)
// joins it, repeatedly until nothing changes. The result maps every key,
// and every voucher named, to its group's representative: the smallest id
// in the group, in byte order. The grouping is the least fixed point, so it
// does not depend on the order of keys.
func Groups(keys []Key) map[string]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	union := func(a, b string) bool {
		ra, rb := find(a), find(b)
		if ra == rb {
			return false
		}
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
		return true
	}
	owners := map[string]string{}
	for _, k := range keys {
		find(k.ID)
		for _, v := range k.VouchedBy {
			find(v)
		}
		if k.Owner == "" {
			continue
		}
		if first, ok := owners[k.Owner]; ok {
			union(first, k.ID)
		} else {
			owners[k.Owner] = k.ID
		}
	}
	for changed := true; changed; {
		changed = false
		for _, k := range keys {
			if len(k.VouchedBy) == 0 {
				continue
			}
			g := find(k.VouchedBy[0])
			one := true
			for _, v := range k.VouchedBy[1:] {
				if find(v) != g {
					one = false
					break
				}
			}
			if one && union(g, k.ID) {
				changed = true
			}
		}
	}
	out := make(map[string]string, len(parent))
	for x := range parent {
		out[x] = find(x)
	}
	return out
}

// Signal is one signal on a post, with the weight the reader gives its
// giver (trust times decay).
type Signal struct {
	Key    string
	Weight float64
}

// Tally is what a post's signals of one kind count for.
type Tally struct {
	// Weight sums, over groups, each group's best weight.
	Weight float64 `json:"weight"`
	// Groups counts the groups with a signal that counted.
	Groups int `json:"groups"`
	// Self counts the signals by keys grouped with the author: they count
	// zero.
	Self int `json:"self"`
}

// Count tallies signals on a post by author under groups (from [Groups];
// a key missing from it is its own group): one count per group at the
// group's best weight, zero for keys grouped with the author.
func Count(author string, signals []Signal, groups map[string]string) Tally {
	group := func(k string) string {
		if g, ok := groups[k]; ok {
			return g
		}
		return k
	}
	ag := group(author)
	best := map[string]float64{}
	var t Tally
	for _, s := range signals {
		g := group(s.Key)
		if g == ag {
			t.Self++
			continue
		}
		if w, ok := best[g]; !ok || s.Weight > w {
			best[g] = s.Weight
		}
	}
	for _, w := range best {
		t.Weight += w
	}
	t.Groups = len(best)
	return t
}

// Status is a post's status (ADR 0019 §3.1).
type Status string

// The four statuses.
const (
	Confirmed  Status = "confirmed"
	Contested  Status = "contested"
	Unverified Status = "unverified"
	Stale      Status = "stale"
)

// Confirmation is an accept or a confirmation with evidence (or a use) on a
// post, from a key grouped apart from its author.
type Confirmation struct {
	// Weight is the reader's trust in the giver's group; only a positive
	// weight counts.
	Weight float64
	// Decay is the signal's decay factor now, from [Decay] at its [Clock].
	Decay float64
	// Accept is set for the asker's accept, which counts whatever its
	// giver's weight.
	Accept bool
}

// PostStatus returns a post's status: contested when a contradiction
// stands (its grounded root is not IN); otherwise confirmed when an accept
// or a confirmation from a key with weight is live (decay factor ≥
// LiveFactor); stale when there were such signals and all have decayed;
// unverified otherwise.
func PostStatus(contested bool, confs []Confirmation) Status {
	if contested {
		return Contested
	}
	had := false
	for _, c := range confs {
		if !c.Accept && c.Weight <= 0 {
			continue
		}
		had = true
		if c.Decay >= LiveFactor {
			return Confirmed
		}
	}
	if had {
		return Stale
	}
	return Unverified
}
