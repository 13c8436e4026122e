package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// nonce returns a fresh nonce for p's proofs.
func (f *fixture) nonce(p issuer.Principal) string {
	f.t.Helper()
	n, err := svc(f.db).HolderKeyNonce(f.ctx, p)
	if err != nil {
		f.t.Fatalf("nonce: %v", err)
	}
	return n.Nonce
}

// setKeys replaces p's holder keys with keys, each proved over a fresh
// nonce.
func (f *fixture) setKeys(p issuer.Principal, keys ...storetest.HolderKey) (issuer.HolderKeys, error) {
	nonce := f.nonce(p)
	req := issuer.HolderKeysRequest{Keys: []issuer.HolderKeyProof{}}
	for _, k := range keys {
		req.Keys = append(req.Keys, k.Proved(f.t, nonce, p.AgentID))
	}
	return svc(f.db).SetHolderKeys(f.ctx, p, req)
}

// thumbprints returns the thumbprints of keys, in byte order.
func thumbprints(keys ...storetest.HolderKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Public().KeyID()
	}
	slices.Sort(out)
	return out
}

// loadedKeys returns the holder keys LoadSubject loads for p.
func (f *fixture) loadedKeys(p issuer.Principal) []string {
	f.t.Helper()
	s, err := f.db.LoadSubject(f.ctx, p.AgentID, time.Now)
	if err != nil {
		f.t.Fatalf("load subject: %v", err)
	}
	return s.HolderKeys
}

func TestHolderKeys(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b := f.agent("a"), f.agent("b")
		keys := []storetest.HolderKey{
			storetest.NewHolderKey(t, passport.EdDSA), storetest.NewHolderKey(t, passport.ES256),
			storetest.NewHolderKey(t, passport.EdDSA), storetest.NewHolderKey(t, passport.ES256),
		}
		rev := f.revision(a)
		got, err := f.setKeys(a, keys...)
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, k := range got.Keys {
			listed = append(listed, k.Thumbprint)
		}
		if want := thumbprints(keys...); !slices.Equal(listed, want) || !slices.Equal(f.loadedKeys(a), want) {
			t.Fatalf("stored %v, loaded %v; want %v in byte order", listed, f.loadedKeys(a), want)
		}
		r1 := f.revision(a)
		if r1 == rev {
			t.Fatal("registering holder keys did not bump the revision")
		}
		audits := f.count(`SELECT COUNT(*) FROM audit_events WHERE action = 'agent.holder_keys_set'`)

		// The same set, in another order, over a new nonce: nothing is written.
		if _, err := f.setKeys(a, keys[3], keys[1], keys[0], keys[2]); err != nil {
			t.Fatal(err)
		}
		if f.revision(a) != r1 || f.count(`SELECT COUNT(*) FROM audit_events WHERE action = 'agent.holder_keys_set'`) != audits {
			t.Fatal("an unchanged set bumped the revision or was audited")
		}

		// A fifth key, and another agent's claim to a key of a, change nothing.
		before := snapshot(t, db)
		_, err = f.setKeys(a, append(keys, storetest.NewHolderKey(t, passport.EdDSA))...)
		wantCode(t, err, issuer.CodeTooManyItems)
		_, err = f.setKeys(b, keys[2])
		wantCode(t, err, issuer.CodeConflict)
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("refused requests changed %v", changed)
		}

		// Removing a key bumps the revision, and frees the key for b.
		if _, err := f.setKeys(a, keys[0], keys[1], keys[3]); err != nil {
			t.Fatal(err)
		}
		if f.revision(a) == r1 || !slices.Equal(f.loadedKeys(a), thumbprints(keys[0], keys[1], keys[3])) {
			t.Fatalf("after a removal: revision unchanged or keys %v", f.loadedKeys(a))
		}
		if _, err := f.setKeys(b, keys[2]); err != nil {
			t.Fatal(err)
		}
		if _, err := f.setKeys(a); err != nil || len(f.loadedKeys(a)) != 0 {
			t.Fatalf("an empty set left %v (%v)", f.loadedKeys(a), err)
		}
		var detail []string
		if err := db.UnsafeSQL().SelectContext(f.ctx, &detail, db.UnsafeSQL().Rebind(`SELECT detail FROM audit_events
			WHERE action = 'agent.holder_keys_set' AND subject = ? ORDER BY id`), a.AgentID); err != nil {
			t.Fatal(err)
		}
		if len(detail) != 3 || detail[1] != `{"added":[],"removed":["`+keys[2].Public().KeyID()+`"]}` {
			t.Fatalf("audit details %q", detail)
		}

		reader := f.agent("reader", issuer.ScopeSearch)
		_, err = svc(db).HolderKeyNonce(f.ctx, reader)
		wantCode(t, err, issuer.CodeInsufficientScope)
		_, err = svc(db).SetHolderKeys(f.ctx, reader, issuer.HolderKeysRequest{Keys: []issuer.HolderKeyProof{}})
		wantCode(t, err, issuer.CodeInsufficientScope)
		own, err := svc(db).HolderKeys(f.ctx, reader)
		if err != nil || own.Keys == nil || len(own.Keys) != 0 {
			t.Fatalf("a reader's own keys: %+v, %v", own, err)
		}
	})
}

func TestHolderKeyRefusals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b := f.agent("a"), f.agent("b")
		cases := storetest.RefusedHolderKeys(t, a.AgentID, f.nonce(a), f.nonce(b))
		before := snapshot(t, db)
		for _, c := range cases {
			_, err := svc(db).SetHolderKeys(f.ctx, a, issuer.HolderKeysRequest{Keys: c.Keys})
			if issuer.ErrorCode(err) != c.Code {
				t.Errorf("%s: %v, want %s", c.Name, err, c.Code)
			}
		}
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("refused requests changed %v", changed)
		}
	})
}

// TestHolderNonceExpires: a nonce is accepted until its expiresAt, five
// minutes after it was handed out, and refused from then on.
func TestHolderNonceExpires(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a := f.agent("a")
		clock := storetest.NewClock(time.Now().UTC(), 0)
		app := service.New(db, service.Options{Now: clock.Now, Cursors: storetest.Sealer(t, db), Issuer: storetest.Issuer})
		n, err := app.HolderKeyNonce(f.ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if d := n.ExpiresAt.Sub(clock.Now()); d > issuer.HolderKeyNonceTTL || d <= issuer.HolderKeyNonceTTL-time.Second {
			t.Fatalf("expires in %v", d)
		}
		key := storetest.NewHolderKey(t, passport.EdDSA)
		req := issuer.HolderKeysRequest{Keys: []issuer.HolderKeyProof{key.Proved(t, n.Nonce, a.AgentID)}}
		clock.Set(n.ExpiresAt)
		_, err = app.SetHolderKeys(f.ctx, a, req)
		wantCode(t, err, issuer.CodeHolderNonceExpired)
		clock.Set(n.ExpiresAt.Add(-time.Nanosecond))
		if _, err := app.SetHolderKeys(f.ctx, a, req); err != nil {
			t.Fatal(err)
		}
	})
}

// TestHolderKeysRace: replacements of one agent's set take turns, so
// the stored set is always one of those requested, never a mixture over
// four keys; two agents claiming one key leave it to exactly one.
func TestHolderKeysRace(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a := f.agent("a")
		const writers = 6
		sets := make([][]storetest.HolderKey, writers)
		reqs := make([]issuer.HolderKeysRequest, writers)
		for i := range sets {
			nonce := f.nonce(a)
			for range issuer.MaxHolderKeys {
				k := storetest.NewHolderKey(t, passport.EdDSA)
				sets[i] = append(sets[i], k)
				reqs[i].Keys = append(reqs[i].Keys, k.Proved(t, nonce, a.AgentID))
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i := range reqs {
			wg.Go(func() { _, errs[i] = svc(db).SetHolderKeys(context.Background(), a, reqs[i]) })
		}
		wg.Wait()
		got, matched := f.loadedKeys(a), false
		for i, s := range sets {
			if errs[i] != nil {
				t.Fatalf("writer %d: %v", i, errs[i])
			}
			matched = matched || slices.Equal(got, thumbprints(s...))
		}
		if !matched {
			t.Fatalf("the stored set %v is none of those written", got)
		}

		shared := storetest.NewHolderKey(t, passport.ES256)
		claimants := []issuer.Principal{f.agent("b"), f.agent("c"), f.agent("d")}
		codes := make([]issuer.Code, len(claimants))
		for i, p := range claimants {
			req := issuer.HolderKeysRequest{Keys: []issuer.HolderKeyProof{shared.Proved(t, f.nonce(p), p.AgentID)}}
			wg.Go(func() {
				_, err := svc(db).SetHolderKeys(context.Background(), p, req)
				codes[i] = issuer.ErrorCode(err)
			})
		}
		wg.Wait()
		won := 0
		for _, c := range codes {
			switch c {
			case "":
				won++
			case issuer.CodeConflict:
			default:
				t.Fatalf("a claim of one key ended %q", c)
			}
		}
		if won != 1 {
			t.Fatalf("%d agents hold one key (%v)", won, codes)
		}
	})
}
