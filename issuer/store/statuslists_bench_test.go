package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
)

// BenchmarkStatusReservation measures what a status list entry adds to
// the issue path: the reservation made as a passport is assembled (one
// statement), beside the write that keeps the issued passport (a small
// evidence file), interleaved in one loop so that their ratio holds on a
// busy machine.
func BenchmarkStatusReservation(b *testing.B) {
	for _, engine := range storetest.Engines(b) {
		b.Run(string(engine), func(b *testing.B) {
			ctx := context.Background()
			db := storetest.Open(b, engine, store.Options{Logger: storetest.Logger(b)})
			a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "subject"})
			if err != nil {
				b.Fatal(err)
			}
			file := []byte(`{"evidence":[],"evidenceRoot":"` + strings.Repeat("0", 64) + `","passportHash":"` + strings.Repeat("0", 64) + `"}`)
			var reserve, save time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				slot, err := db.ReserveStatusEntry(ctx)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				at := t1.UTC().Truncate(time.Second)
				if err := db.SaveIssuedPassport(ctx, service.IssuedPassport{PassportHash: fmt.Sprintf("%064x", n), Subject: a.ID,
					IssuedAt: at, ExpiresAt: at.Add(time.Hour), KID: "bench", Status: &slot, EvidenceFile: file}, at.Add(2*time.Hour)); err != nil {
					b.Fatal(err)
				}
				reserve += t1.Sub(t0)
				save += time.Since(t1)
				n++
			}
			b.ReportMetric(float64(reserve.Nanoseconds())/float64(n), "ns-reserve")
			b.ReportMetric(float64(save.Nanoseconds())/float64(n), "ns-save")
			b.ReportMetric(float64(reserve)/float64(save), "reserve/save")
		})
	}
}

// BenchmarkStatusListRegeneration measures the token of a list of 2^20
// entries, 1% of them revoked at random, served after one more
// revocation: reading the list's entries, encoding them at the best
// compression and signing the token, beside the plain encoding of the
// same array (statuslist.List.Encode), interleaved in one loop.
func BenchmarkStatusListRegeneration(b *testing.B) {
	for _, engine := range storetest.Engines(b) {
		b.Run(string(engine), func(b *testing.B) {
			ctx := context.Background()
			clock := storetest.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), 0)
			db := storetest.Open(b, engine, store.Options{Now: clock.Now, Logger: storetest.Logger(b)})
			ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.bench", Dir: filepath.Join(b.TempDir(), "keys"), Now: clock.Now})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
				b.Fatal(err)
			}
			a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "subject"})
			if err != nil {
				b.Fatal(err)
			}
			slot, err := db.ReserveStatusEntry(ctx)
			if err != nil {
				b.Fatal(err)
			}
			at := clock.Now()
			hash := fmt.Sprintf("%064x", 1)
			if err := db.SaveIssuedPassport(ctx, service.IssuedPassport{PassportHash: hash, Subject: a.ID, IssuedAt: at, ExpiresAt: at.Add(time.Hour),
				KID: "bench", Status: &slot, EvidenceFile: []byte(`{}`)}, at.Add(2*time.Hour)); err != nil {
				b.Fatal(err)
			}
			array := seedRevoked(b, db, slot, service.StatusListCapacity/100)

			lists := service.NewStatusLists(db, ring, service.StatusListOptions{Now: clock.Now})
			if _, err := lists.Token(ctx, slot.List); err != nil {
				b.Fatal(err)
			}
			var regenerate, encode time.Duration
			tokenBytes := 0
			for i := 0; b.Loop(); i++ {
				to := []issuer.PassportStatus{issuer.PassportSuspended, issuer.PassportValid}[i%2]
				c, _ := issuer.NewStatusChange(hash, to, "bench")
				if _, err := storetest.Admin(db).SetPassportStatus(ctx, c); err != nil {
					b.Fatal(err)
				}
				array.Set(slot.Idx, to.Value())
				clock.Add(service.StatusListDebounce)
				t0 := time.Now()
				tok, err := lists.Token(ctx, slot.List)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := array.Encode(); err != nil {
					b.Fatal(err)
				}
				regenerate += t1.Sub(t0)
				encode += time.Since(t1)
				tokenBytes = len(tok.Token)
			}
			n := float64(b.N)
			b.ReportMetric(float64(regenerate.Nanoseconds())/n, "ns-regenerate")
			b.ReportMetric(float64(encode.Nanoseconds())/n, "ns-encode")
			b.ReportMetric(float64(regenerate)/float64(encode), "regenerate/encode")
			b.ReportMetric(float64(tokenBytes), "token-bytes")
		})
	}
}

// seedRevoked marks n entries of slot's list revoked, at random indexes
// other than slot's, as reserved entries would be, and returns the same
// array as a statuslist.List.
func seedRevoked(b *testing.B, db *store.DB, slot service.StatusSlot, n int) *statuslist.List {
	b.Helper()
	x := db.UnsafeSQL()
	var key int64
	if err := x.Get(&key, x.Rebind(`SELECT id FROM status_lists WHERE name = ?`), slot.List); err != nil {
		b.Fatal(err)
	}
	array, err := statuslist.New(service.StatusListBits, service.StatusListCapacity)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{slot.Idx: true}
	var rows []string
	for len(seen) <= n {
		i := rng.IntN(service.StatusListCapacity)
		if seen[i] {
			continue
		}
		seen[i] = true
		array.Set(i, statuslist.Invalid)
		rows = append(rows, fmt.Sprintf("(%d, %d, 1, 'seed', '2026-12-01 12:00:00+00')", key, i))
	}
	for len(rows) > 0 {
		batch := rows[:min(len(rows), 1000)]
		rows = rows[len(batch):]
		if _, err := x.Exec(`INSERT INTO status_entries (list_id, idx, status, reason, updated_at) VALUES ` + strings.Join(batch, ", ")); err != nil {
			b.Fatal(err)
		}
	}
	return array
}
