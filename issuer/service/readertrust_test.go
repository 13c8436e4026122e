package service_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestFanOutCapNeverRaisesTrust propagates over a real store's trust
// edges with and without a tight fan-out cap: the cap may only lower a
// score, because the weight it leaves unread passes nothing on.
func TestFanOutCapNeverRaisesTrust(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var keys []int64
		for i := range 12 {
			a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: fmt.Sprint("n", i)})
			if err != nil {
				t.Fatal(err)
			}
			p, err := db.Authenticate(ctx, a.Key)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, p.Key)
		}
		x := db.UnsafeSQL()
		add := func(s, d int, w int64) {
			if _, err := x.Exec(x.Rebind(`INSERT INTO trust_edges (source_id, target_id, weight) VALUES (?, ?, ?)`), keys[s], keys[d], w); err != nil {
				t.Fatal(err)
			}
		}
		// The seed trusts five nodes; each of those trusts three more.
		for i := 1; i <= 5; i++ {
			add(0, i, int64(1000*i))
			for j := range 3 {
				add(i, 6+(i+j)%6, int64(500+100*j))
			}
		}
		full, err := service.New(db, service.Options{Search: service.SearchOptions{FanOut: 100}}).Propagate(ctx, keys[:1])
		if err != nil {
			t.Fatal(err)
		}
		capped, err := service.New(db, service.Options{Search: service.SearchOptions{FanOut: 2}}).Propagate(ctx, keys[:1])
		if err != nil {
			t.Fatal(err)
		}
		lower := 0
		for k, c := range capped {
			if c > full[k]+1e-12 {
				t.Errorf("node %d: capped %.6f above uncapped %.6f", k, c, full[k])
			}
			if c < full[k]-1e-12 {
				lower++
			}
		}
		// The seed's share at k = 0 and its heaviest edge are unchanged.
		if math.Abs(capped[keys[0]]-full[keys[0]]) > 1e-12 || math.Abs(capped[keys[5]]-full[keys[5]]) > 1e-12 {
			t.Fatalf("seed %.6f/%.6f, heaviest %.6f/%.6f", capped[keys[0]], full[keys[0]], capped[keys[5]], full[keys[5]])
		}
		if lower == 0 || len(capped) >= len(full) {
			t.Fatalf("the cap changed nothing: %d capped, %d full", len(capped), len(full))
		}
	})
}
