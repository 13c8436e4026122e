package store_test

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// spearman returns Spearman's rank correlation of xs with their order:
// the Pearson correlation of the ranks 0…n−1 with the ranks of xs
// (distinct values).
func spearman(xs []int) float64 {
	n := len(xs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return xs[a] - xs[b] })
	var d2 float64
	for rank, i := range order {
		d := float64(rank - i)
		d2 += d * d
	}
	fn := float64(n)
	return 1 - 6*d2/(fn*(fn*fn-1))
}

// A thousand reservations get a thousand distinct indexes of one list,
// each within its capacity, in an order unrelated to the order of the
// reservations: Spearman's |ρ| of 1,000 random indexes with their order
// has a standard deviation of 1/√999 ≈ 0.032, so |ρ| < 0.2 (6 standard
// deviations) fails by chance about once in 10^9 runs, while allocation in
// order (ρ = 1), or in any order that drifts with time, fails it. With
// -short, 250 reservations and |ρ| < 0.4, as unlikely. The list counts
// what it reserved.
func TestStatusEntriesDrawnAtRandom(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		n, bound := 1000, 0.2
		if testing.Short() {
			n, bound = 250, 0.4
		}
		idx := make([]int, n)
		seen := map[int]bool{}
		var list issuer.StatusListID
		for i := range n {
			slot, err := db.ReserveStatusEntry(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				list = slot.List
			}
			if slot.List != list || slot.Idx < 0 || slot.Idx >= service.StatusListCapacity || seen[slot.Idx] {
				t.Fatalf("reservation %d: %+v (list %s, %d seen)", i, slot, list, len(seen))
			}
			seen[slot.Idx] = true
			idx[i] = slot.Idx
		}
		rho := spearman(idx)
		t.Logf("Spearman's ρ of %d reserved indexes with their order: %.4f", n, rho)
		if math.Abs(rho) >= bound {
			t.Fatalf("indexes follow the order of reservation: ρ = %.3f", rho)
		}
		if got := count(t, db, `SELECT used FROM status_lists WHERE name = ?`, list); got != n {
			t.Fatalf("the list counts %d reserved entries, want %d", got, n)
		}
	})
}

// count returns the single integer a query yields.
func count(t *testing.T, db *store.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.UnsafeSQL().Get(&n, db.UnsafeSQL().Rebind(query), args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// Once half its entries are reserved, a list takes no more: the next
// reservation opens a new list, in this process and in another one that
// still reserves in the old list.
func TestStatusListOpensNextWhenHalfFull(t *testing.T) {
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			ps := stacks(t, engine, 2, nil)
			procs := []*store.DB{ps[0].db, ps[1].db}
			first := make([]service.StatusSlot, 2)
			for i, db := range procs {
				s, err := db.ReserveStatusEntry(ctx)
				if err != nil {
					t.Fatal(err)
				}
				first[i] = s
			}
			if first[0].List != first[1].List {
				t.Fatalf("two processes opened two lists: %v", first)
			}
			// All but one of the first half, as if reserved.
			if _, err := procs[0].UnsafeSQL().Exec(procs[0].UnsafeSQL().Rebind(`UPDATE status_lists SET used = ? WHERE name = ?`),
				service.StatusListCapacity/2-1, first[0].List); err != nil {
				t.Fatal(err)
			}
			last, err := procs[0].ReserveStatusEntry(ctx)
			if err != nil || last.List != first[0].List {
				t.Fatalf("the last entry of the first half: %+v, %v", last, err)
			}
			next := make([]service.StatusSlot, 2)
			for i, db := range procs {
				if next[i], err = db.ReserveStatusEntry(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if next[0].List == first[0].List || next[1].List != next[0].List {
				t.Fatalf("after the first half of %s: reserved %v", first[0].List, next)
			}
			if n := count(t, procs[0], `SELECT COUNT(*) FROM status_lists`); n != 2 {
				t.Fatalf("%d lists, want 2", n)
			}
		})
	}
}

// Reservations racing from several goroutines and two pools never share
// an index, and the list counts each once.
func TestConcurrentStatusReservations(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			ps := stacks(t, engine, 2, nil)
			pools := []*store.DB{ps[0].db, ps[1].db}
			const goroutines, each = 8, 40
			var (
				mu    sync.Mutex
				slots = map[service.StatusSlot]bool{}
				wg    sync.WaitGroup
			)
			errs := make(chan error, goroutines)
			for g := range goroutines {
				wg.Go(func() {
					for range each {
						s, err := pools[g%2].ReserveStatusEntry(ctx)
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						if slots[s] {
							errs <- fmt.Errorf("entry %+v reserved twice", s)
						}
						slots[s] = true
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if got := count(t, pools[0], `SELECT SUM(used) FROM status_lists`); len(slots) != goroutines*each || got != len(slots) {
				t.Fatalf("%d distinct entries, the lists count %d; want %d", len(slots), got, goroutines*each)
			}
		})
	}
}

// issued keeps an issued passport of a with a reserved entry, signed by
// kid, and returns its hash and entry.
func issued(t *testing.T, db *store.DB, a issuer.AgentID, kid string, n int) (string, service.StatusSlot) {
	t.Helper()
	ctx := context.Background()
	slot, err := db.ReserveStatusEntry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hash := fmt.Sprintf("%064x", n)
	at := time.Now().UTC().Truncate(time.Second)
	if err := db.SaveIssuedPassport(ctx, service.IssuedPassport{PassportHash: hash, Subject: a, IssuedAt: at, ExpiresAt: at.Add(time.Hour),
		KID: kid, Status: &slot, EvidenceFile: []byte(`{}`)}, at.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	return hash, slot
}

// statusOf returns the status list entry of slot as the list's state
// reads it, and the list's version.
func statusOf(t *testing.T, db *store.DB, slot service.StatusSlot) (issuer.PassportStatus, int64) {
	t.Helper()
	st, err := db.StatusListState(context.Background(), slot.List)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range st.Set {
		if e.Idx == slot.Idx {
			return e.Status, st.Version
		}
	}
	return issuer.PassportValid, st.Version
}

// A passport's status moves valid → suspended → valid → revoked, each
// change one audited transaction that changes the list's version and the
// subject's revision; asking for the status a passport has changes
// nothing and says so; a revoked passport stays revoked; an unknown hash
// is not_found and a passport issued without an entry a conflict.
func TestSetPassportStatus(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		a := f.agent("subject")
		hash, slot := issued(t, db, a.AgentID, "kid-1", 1)
		_, other := issued(t, db, a.AgentID, "kid-1", 2)
		change := func(to issuer.PassportStatus) (issuer.StatusOutcome, error) {
			c, err := issuer.NewStatusChange(hash, to, "because "+string(to))
			if err != nil {
				t.Fatal(err)
			}
			return storetest.Admin(db).SetPassportStatus(ctx, c)
		}
		_, version := statusOf(t, db, slot)
		for i, step := range []struct {
			to      issuer.PassportStatus
			from    issuer.PassportStatus
			changed bool
		}{
			{issuer.PassportValid, issuer.PassportValid, false},
			{issuer.PassportSuspended, issuer.PassportValid, true},
			{issuer.PassportSuspended, issuer.PassportSuspended, false},
			{issuer.PassportValid, issuer.PassportSuspended, true},
			{issuer.PassportRevoked, issuer.PassportValid, true},
			{issuer.PassportRevoked, issuer.PassportRevoked, false},
		} {
			rev, err := db.SubjectRevision(ctx, a.AgentID)
			if err != nil {
				t.Fatal(err)
			}
			audits := count(t, db, `SELECT COUNT(*) FROM audit_events WHERE subject = ?`, hash)
			out, err := change(step.to)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			want := issuer.StatusOutcome{List: slot.List, Index: slot.Idx, From: step.from, To: step.to, Changed: step.changed}
			if out != want {
				t.Fatalf("step %d: %+v, want %+v", i, out, want)
			}
			got, v := statusOf(t, db, slot)
			next, _ := db.SubjectRevision(ctx, a.AgentID)
			n := count(t, db, `SELECT COUNT(*) FROM audit_events WHERE subject = ?`, hash)
			if got != step.to || (v != version) != step.changed || (next != rev) != step.changed || (n != audits) != step.changed {
				t.Fatalf("step %d: status %s, version %d → %d, revision changed %v, audit events %d → %d", i, got, version, v, next != rev, audits, n)
			}
			version = v
		}
		if st, _ := statusOf(t, db, other); st != issuer.PassportValid {
			t.Fatalf("another passport's entry became %s", st)
		}
		for _, to := range []issuer.PassportStatus{issuer.PassportValid, issuer.PassportSuspended} {
			_, err := change(to)
			wantCode(t, err, issuer.CodeConflict)
		}
		unknown, _ := issuer.NewStatusChange(fmt.Sprintf("%064x", 99), issuer.PassportRevoked, "x")
		_, err := storetest.Admin(db).SetPassportStatus(ctx, unknown)
		wantCode(t, err, issuer.CodeNotFound)
		at := time.Now().UTC().Truncate(time.Second)
		bare := fmt.Sprintf("%064x", 100)
		if err := db.SaveIssuedPassport(ctx, service.IssuedPassport{PassportHash: bare, Subject: a.AgentID, IssuedAt: at, ExpiresAt: at.Add(time.Hour),
			KID: "kid-1", EvidenceFile: []byte(`{}`)}, at.Add(48*time.Hour)); err != nil {
			t.Fatal(err)
		}
		c, _ := issuer.NewStatusChange(bare, issuer.PassportRevoked, "x")
		_, err = storetest.Admin(db).SetPassportStatus(ctx, c)
		wantCode(t, err, issuer.CodeConflict)
	})
}

// Withdrawing a key revokes, in the withdrawal's transaction, every kept
// passport it signed, and no other; a plain retirement revokes nothing.
func TestWithdrawalRevokesWhatTheKeySigned(t *testing.T) {
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := stacks(t, engine, 1, nil)[0]
			f := newFixture(t, s.db)
			a, b := f.agent("a"), f.agent("b")
			f.publish(a, "go")
			f.publish(b, "go")
			if _, err := s.ring.EnsureActive(ctx, passport.EdDSA); err != nil {
				t.Fatal(err)
			}
			issue := func(id issuer.AgentID) *issuing.Issued {
				t.Helper()
				is, err := s.passports.Issue(ctx, id, issuing.DiscloseNone)
				if err != nil {
					t.Fatal(err)
				}
				if is.Passport.Status == nil {
					t.Fatal("an issued passport carries no status")
				}
				return is
			}
			entry := func(is *issuing.Issued) service.StatusSlot {
				ref := is.Passport.Status.StatusList
				return service.StatusSlot{List: issuer.StatusListID(path.Base(ref.URI)), Idx: ref.Idx}
			}
			old := []*issuing.Issued{issue(a.AgentID), issue(b.AgentID)}
			rot, err := s.ring.Rotate(ctx, "", passport.EdDSA)
			if err != nil {
				t.Fatal(err)
			}
			fresh := issue(a.AgentID)
			if fresh.PassportHash == old[0].PassportHash || entry(fresh) == entry(old[0]) {
				t.Fatal("after a rotation the same passport was served")
			}
			if _, err := s.ring.Retire(ctx, rot.Active.KID, false); err != nil {
				t.Fatal(err)
			}
			for _, is := range append(old, fresh) {
				if st, _ := statusOf(t, s.db, entry(is)); st != issuer.PassportValid {
					t.Fatalf("a retirement left passport %s %s", is.PassportHash, st)
				}
			}
			if _, err := s.ring.Retire(ctx, rot.Retired.KID, true); err != nil {
				t.Fatal(err)
			}
			for _, is := range old {
				if st, _ := statusOf(t, s.db, entry(is)); st != issuer.PassportRevoked {
					t.Fatalf("passport %s of the withdrawn key is %s", is.PassportHash, st)
				}
			}
			if st, _ := statusOf(t, s.db, entry(fresh)); st != issuer.PassportValid {
				t.Fatalf("a passport of another key became %s", st)
			}
			if n := count(t, s.db, `SELECT COUNT(*) FROM audit_events WHERE action = 'passports.revoked_by_withdrawal' AND subject = ?`, rot.Retired.KID); n != 1 {
				t.Fatalf("%d audit events of the withdrawal", n)
			}
		})
	}
}
