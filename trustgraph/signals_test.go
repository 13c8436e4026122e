package trustgraph

import (
	"math"
	"testing"
)

func TestFloor(t *testing.T) {
	c := DefaultFloorCap
	for _, tc := range []struct{ age, want float64 }{{0, 0}, {6.99, 0}, {7, 0}, {18.5, c / 2}, {30, c}, {400, c}} {
		got, err := Floor(tc.age, c)
		if err != nil || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("age %v: %v %v, want %v", tc.age, got, err, tc.want)
		}
	}
	if _, err := Floor(10, VouchTrust); err == nil {
		t.Error("a cap of one vouch was accepted")
	}
}

func TestDecayAndClock(t *testing.T) {
	near(t, "confirm 180", Decay(Confirm, 180), .5)
	near(t, "vote 30", Decay(Vote, 30), .5)
	near(t, "future", Decay(Cite, -5), 1)
	// Renewals at 10, 20 (too soon), 45, 60 (too soon), 80; asOf 70 hides 80.
	if got := Clock(0, []float64{20, 10, 45, 60, 80}, 70); got != 45 {
		t.Errorf("clock %v, want 45", got)
	}
	if got := Clock(100, []float64{50}, 200); got != 100 {
		t.Errorf("a renewal before the confirmation moved the clock to %v", got)
	}
}

func TestGroupsAndCount(t *testing.T) {
	keys := []Key{
		{ID: "a1", Owner: "acme"}, {ID: "a2", Owner: "acme"},
		{ID: "s1", VouchedBy: []string{"a1"}},       // one voucher: joins acme
		{ID: "s2", VouchedBy: []string{"a2", "s1"}}, // vouchers all in acme: joins
		{ID: "x", VouchedBy: []string{"a1", "y"}},   // two groups: stays apart
		{ID: "y"},
	}
	g := Groups(keys)
	for _, k := range []string{"a2", "s1", "s2"} {
		if g[k] != "a1" {
			t.Errorf("%s in group %q, want a1", k, g[k])
		}
	}
	if g["x"] != "x" || g["y"] != "y" {
		t.Errorf("x %q y %q", g["x"], g["y"])
	}
	c := Count("y", []Signal{{"a1", .2}, {"a2", .5}, {"s2", .1}, {"x", .3}, {"y", 9}}, g)
	if c.Groups != 2 || c.Self != 1 || math.Abs(c.Weight-.8) > 1e-15 {
		t.Errorf("%+v", c)
	}
	if c := Count("s1", []Signal{{"a1", 1}, {"x", .3}}, g); c.Self != 1 || c.Groups != 1 {
		t.Errorf("grouped confirmation counted: %+v", c)
	}
}

func TestPostStatus(t *testing.T) {
	live, dead := Decay(Confirm, 100), Decay(Confirm, 400)
	for _, tc := range []struct {
		contested bool
		confs     []Confirmation
		want      Status
	}{
		{false, nil, Unverified},
		{false, []Confirmation{{Weight: 0, Decay: 1}}, Unverified},
		{false, []Confirmation{{Weight: .1, Decay: live}}, Confirmed},
		{false, []Confirmation{{Accept: true, Decay: live}}, Confirmed},
		{false, []Confirmation{{Weight: .1, Decay: dead}}, Stale},
		{false, []Confirmation{{Weight: .1, Decay: LiveFactor}}, Confirmed},
		{true, []Confirmation{{Weight: .1, Decay: live}}, Contested},
	} {
		if got := PostStatus(tc.contested, tc.confs); got != tc.want {
			t.Errorf("%v %+v: %s, want %s", tc.contested, tc.confs, got, tc.want)
		}
	}
}
