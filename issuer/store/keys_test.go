package store_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// testKey returns a distinct key record; the store does not parse JWKs.
func testKey(i int) keyring.KeyRecord {
	kid := fmt.Sprintf("kid-%039d", i)
	return keyring.KeyRecord{KID: kid, Alg: "EdDSA", PublicJWK: `{"kid":"` + kid + `"}`}
}

func mustKeys(t *testing.T, db *store.DB) []issuer.SigningKey {
	t.Helper()
	keys, err := db.SigningKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestSigningKeyLifecycle(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			clock := storetest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC), 0)
			db := storetest.Open(t, engine, store.Options{Now: clock.Now})
			ctx := context.Background()
			const publishFor = 31 * 24 * time.Hour

			ready, err := db.AddSigningKey(ctx, testKey(1))
			if err != nil {
				t.Fatal(err)
			}
			if ready.Status != issuer.KeyReady || ready.NotBefore != nil || ready.PublishedAt(clock.Now()) {
				t.Fatalf("added key %+v, want ready, unpublished, no window", ready)
			}
			first, err := db.ActivateSigningKey(ctx, testKey(1), publishFor)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) // truncated to the second
			if first.Retired != nil || first.Active.Status != issuer.KeyActive || !first.Active.NotBefore.Equal(start) {
				t.Fatalf("first activation %+v, want key 1 active from %v, nothing retired", first, start)
			}

			clock.Add(48 * time.Hour)
			second, err := db.ActivateSigningKey(ctx, testKey(2), publishFor)
			if err != nil {
				t.Fatal(err)
			}
			rot := start.Add(48 * time.Hour)
			old := second.Retired
			if old == nil || old.KID != testKey(1).KID || !old.NotAfter.Equal(rot) || !old.PublishUntil.Equal(rot.Add(publishFor)) {
				t.Fatalf("rotation retired %+v, want key 1 closed at %v and published until %v", old, rot, rot.Add(publishFor))
			}
			keys := mustKeys(t, db)
			if len(keys) != 2 || keys[0].Status != issuer.KeyRetired || keys[1].Status != issuer.KeyActive || !keys[1].NotBefore.Equal(rot) {
				t.Fatalf("keys after rotation: %+v", keys)
			}
			if !keys[0].PublishedAt(rot.Add(publishFor-time.Second)) || keys[0].PublishedAt(rot.Add(publishFor)) {
				t.Fatalf("retired key publication does not end at %v", rot.Add(publishFor))
			}

			// Refusals, each changing nothing.
			before := mustKeys(t, db)
			refusals := []struct {
				name string
				code issuer.Code
				do   func() error
			}{
				{"activate the active key", issuer.CodeConflict, func() error { _, err := db.ActivateSigningKey(ctx, testKey(2), publishFor); return err }},
				{"reactivate a retired key", issuer.CodeConflict, func() error { _, err := db.ActivateSigningKey(ctx, testKey(1), publishFor); return err }},
				{"add a recorded key", issuer.CodeConflict, func() error { _, err := db.AddSigningKey(ctx, testKey(1)); return err }},
				{"retire an unknown kid", issuer.CodeNotFound, func() error { _, err := db.RetireSigningKey(ctx, "no-such-kid", publishFor); return err }},
				{"retire a retired key again", issuer.CodeConflict, func() error { _, err := db.RetireSigningKey(ctx, testKey(1).KID, publishFor); return err }},
			}
			for _, r := range refusals {
				if err := r.do(); issuer.ErrorCode(err) != r.code {
					t.Errorf("%s: %v, want %s", r.name, err, r.code)
				}
			}
			if after := mustKeys(t, db); !reflect.DeepEqual(before, after) {
				t.Fatalf("a refusal changed the keys:\nbefore %+v\nafter  %+v", before, after)
			}

			// Withdrawing a retired key ends its publication now.
			clock.Add(time.Hour)
			w, err := db.RetireSigningKey(ctx, testKey(1).KID, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !w.PublishUntil.Equal(rot.Add(time.Hour)) || !w.NotAfter.Equal(rot) || w.PublishedAt(clock.Now()) {
				t.Fatalf("withdrawn key %+v, want its window kept and publication ended at %v", w, rot.Add(time.Hour))
			}

			// Retiring the active key leaves none active; a ready key retires
			// unpublished.
			if _, err := db.AddSigningKey(ctx, testKey(3)); err != nil {
				t.Fatal(err)
			}
			if k, err := db.RetireSigningKey(ctx, testKey(3).KID, publishFor); err != nil || k.PublishedAt(clock.Now()) || k.NotBefore != nil {
				t.Fatalf("retired ready key %+v, %v: want unpublished with no window", k, err)
			}
			if k, err := db.RetireSigningKey(ctx, testKey(2).KID, publishFor); err != nil || !k.PublishedAt(clock.Now()) {
				t.Fatalf("retired active key %+v, %v: want published", k, err)
			}
			for _, k := range mustKeys(t, db) {
				if k.Status == issuer.KeyActive {
					t.Fatalf("key %s still active after retirement", k.KID)
				}
			}
			if k, ok, err := db.ActivateFirstSigningKey(ctx, testKey(4)); err != nil || !ok || k.Status != issuer.KeyActive {
				t.Fatalf("first key with none active: %+v %v %v", k, ok, err)
			}
			if _, ok, err := db.ActivateFirstSigningKey(ctx, testKey(5)); err != nil || ok {
				t.Fatalf("first key with one active: activated %v, %v", ok, err)
			}
			if n := len(mustKeys(t, db)); n != 4 {
				t.Fatalf("%d keys recorded, want 4 (the losing first key is not recorded)", n)
			}
		})
	}
}

// TestSigningKeySchemaGuards writes past the store, as a faulty tool would:
// the schema refuses a second active key, a retired key signing again,
// changed identities and deletions.
func TestSigningKeySchemaGuards(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.ActivateSigningKey(ctx, testKey(1), time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ActivateSigningKey(ctx, testKey(2), time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AddSigningKey(ctx, testKey(3)); err != nil {
			t.Fatal(err)
		}
		x := db.UnsafeSQL()
		now := time.Now().UTC()
		for name, q := range map[string]struct {
			sql  string
			args []any
		}{
			"second active":     {`UPDATE issuer_keys SET status = 'active', not_before = ? WHERE kid = ?`, []any{now, testKey(3).KID}},
			"retired re-signs":  {`UPDATE issuer_keys SET status = 'active', not_after = NULL, publish_until = NULL WHERE kid = ?`, []any{testKey(1).KID}},
			"window reopened":   {`UPDATE issuer_keys SET not_after = ? WHERE kid = ?`, []any{now.Add(time.Hour), testKey(1).KID}},
			"public key change": {`UPDATE issuer_keys SET public_jwk = '{}' WHERE kid = ?`, []any{testKey(2).KID}},
			"delete":            {`DELETE FROM issuer_keys WHERE kid = ?`, []any{testKey(1).KID}},
			"active, no window": {`INSERT INTO issuer_keys (kid, alg, public_jwk, status, created_at) VALUES ('k', 'EdDSA', '{}', 'active', ?)`, []any{now}},
		} {
			if _, err := x.ExecContext(ctx, x.Rebind(q.sql), q.args...); err == nil {
				t.Errorf("%s: the schema accepted it", name)
			}
		}
	})
}

// TestSigningKeyRotationRace races rotations and first activations on real
// transactions: every one succeeds or declines cleanly, and exactly one key
// is active after all of them, with a chain of retirements behind it.
func TestSigningKeyRotationRace(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const n = 12
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		firsts := make(chan bool, n)
		for i := range n {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := db.ActivateSigningKey(ctx, testKey(100+i), time.Hour)
				errs <- err
			}()
			go func() {
				defer wg.Done()
				_, ok, err := db.ActivateFirstSigningKey(ctx, testKey(200+i))
				errs <- err
				firsts <- ok
			}()
		}
		wg.Wait()
		close(errs)
		close(firsts)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		activated := 0
		for ok := range firsts {
			if ok {
				activated++
			}
		}
		if activated > 1 {
			t.Fatalf("%d first activations succeeded; at most one may", activated)
		}
		active, retired := 0, 0
		for _, k := range mustKeys(t, db) {
			switch k.Status {
			case issuer.KeyActive:
				active++
			case issuer.KeyRetired:
				retired++
			}
		}
		if active != 1 || retired != n+activated-1 {
			t.Fatalf("%d active and %d retired after %d rotations and %d first activation(s), want 1 and %d", active, retired, n, activated, n+activated-1)
		}
	})
}
