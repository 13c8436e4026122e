package httpapi_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// holderEnv is the API over a fresh store with passports, whose service,
// keys and passports read one test clock.
type holderEnv struct {
	*env
	clock *storetest.Clock
}

func newHolderEnv(t *testing.T, db *store.DB) *holderEnv {
	t.Helper()
	// The hour's start: passports are cached by hour, and the test's
	// reads must fall in one.
	clock := storetest.NewClock(time.Now().UTC().Truncate(time.Hour), 0)
	app := service.New(db, service.Options{Now: clock.Now, Cursors: storetest.Sealer(t, db), Issuer: storetest.Issuer})
	ring, err := keyring.New(db, keyring.Config{Issuer: storetest.Issuer, Dir: filepath.Join(t.TempDir(), "keys"), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(context.Background(), passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	log := storetest.Logger(t)
	cfg := httpapi.Config{RatePerSecond: 1000, Burst: 1000, Keys: ring,
		Passports: service.NewPassports(db, ring, service.PassportOptions{Now: clock.Now}),
		MCP:       mcpserver.Handler(app, log, "test")}
	return &holderEnv{env: serve(t, db, httpapi.New(app, log, cfg)), clock: clock}
}

// nonce asks for a nonce with key.
func (e *holderEnv) nonce(key issuer.APIKey) issuer.HolderKeyNonce {
	e.t.Helper()
	var n issuer.HolderKeyNonce
	must(e.t, e.do(key, "POST", "/api/agents/me/holder-keys/nonce", ""), 200).json(e.t, &n)
	return n
}

// put sends keys as the holder keys of key's agent.
func (e *holderEnv) put(key issuer.APIKey, keys []issuer.HolderKeyProof) response {
	e.t.Helper()
	body := []byte("{}")
	if keys != nil {
		var err error
		if body, err = json.Marshal(issuer.HolderKeysRequest{Keys: keys}); err != nil {
			e.t.Fatal(err)
		}
	}
	return e.do(key, "PUT", "/api/agents/me/holder-keys", string(body))
}

// prove sends keys, each proved over a fresh nonce of agent id, and
// checks that they are stored.
func (e *holderEnv) prove(key issuer.APIKey, id issuer.AgentID, keys ...storetest.HolderKey) issuer.HolderKeys {
	e.t.Helper()
	nonce := e.nonce(key).Nonce
	req := []issuer.HolderKeyProof{}
	var want []string
	for _, k := range keys {
		req = append(req, k.Proved(e.t, nonce, id))
		want = append(want, k.Public().KeyID())
	}
	var got issuer.HolderKeys
	must(e.t, e.put(key, req), 200).json(e.t, &got)
	var stored []string
	for _, k := range got.Keys {
		stored = append(stored, k.Thumbprint)
	}
	if slices.Sort(want); !slices.Equal(stored, want) {
		e.t.Fatalf("stored %v, want %v", stored, want)
	}
	return got
}

// etag returns the ETag of id's passport, a second later than the last
// read, so that a passport built anew differs in its issue time.
func (e *holderEnv) etag(id issuer.AgentID) string {
	e.t.Helper()
	e.clock.Add(time.Second)
	return must(e.t, e.do("", "GET", "/api/public/agents/"+string(id)+"/passport", ""), 200).header.Get("ETag")
}

func TestHolderKeysOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newHolderEnv(t, db)
		aKey, aID := e.agent("Holder")
		bKey, bID := e.agent("Other")
		keys := []storetest.HolderKey{
			storetest.NewHolderKey(t, passport.EdDSA), storetest.NewHolderKey(t, passport.ES256),
			storetest.NewHolderKey(t, passport.EdDSA), storetest.NewHolderKey(t, passport.ES256),
		}

		n := e.nonce(aKey)
		if !n.ExpiresAt.Equal(e.clock.Now().Add(issuer.HolderKeyNonceTTL)) {
			t.Fatalf("a nonce expiring at %v", n.ExpiresAt)
		}
		e0 := e.etag(aID)
		one := e.prove(aKey, aID, keys[0])
		if one.Keys[0].Algorithm != "EdDSA" || one.Keys[0].CreatedAt.IsZero() {
			t.Fatalf("stored %+v", one.Keys[0])
		}
		e1 := e.etag(aID)
		all := e.prove(aKey, aID, keys...)
		e2 := e.etag(aID)
		var listed issuer.HolderKeys
		must(t, e.do(aKey, "GET", "/api/agents/me/holder-keys", ""), 200).json(t, &listed)
		if len(listed.Keys) != 4 || string(listed.Keys[0].JWK) != string(all.Keys[0].JWK) {
			t.Fatalf("listed %+v", listed)
		}
		e.prove(aKey, aID, keys[3], keys[2], keys[1], keys[0])
		if e3 := e.etag(aID); e0 == e1 || e1 == e2 || e3 != e2 {
			t.Fatalf("passport ETags %s, %s, %s, %s: each change must show, an unchanged set must not", e0, e1, e2, e3)
		}

		// A fifth key; another agent's claim to one of them.
		five, nonce := []issuer.HolderKeyProof{}, e.nonce(aKey).Nonce
		for _, k := range append(keys, storetest.NewHolderKey(t, passport.EdDSA)) {
			five = append(five, k.Proved(t, nonce, aID))
		}
		wantProblem(t, e.put(aKey, five), 400, issuer.CodeTooManyItems)
		wantProblem(t, e.put(bKey, []issuer.HolderKeyProof{keys[1].Proved(t, e.nonce(bKey).Nonce, bID)}), 409, issuer.CodeConflict)

		// An expired nonce.
		stale := e.nonce(aKey)
		e.clock.Set(stale.ExpiresAt)
		wantProblem(t, e.put(aKey, []issuer.HolderKeyProof{keys[0].Proved(t, stale.Nonce, aID)}), 400, issuer.CodeHolderNonceExpired)

		for _, c := range storetest.RefusedHolderKeys(t, aID, e.nonce(aKey).Nonce, e.nonce(bKey).Nonce) {
			r := e.put(aKey, c.Keys)
			if r.status == 200 {
				t.Errorf("%s: accepted", c.Name)
				continue
			}
			var p httpapi.Problem
			r.json(t, &p)
			if p.Code != c.Code {
				t.Errorf("%s: %d %s (%s), want %s", c.Name, r.status, p.Code, p.Detail, c.Code)
			}
		}

		// Removing a key is a new passport.
		e.prove(aKey, aID, keys[0], keys[1], keys[3])
		if e4 := e.etag(aID); e4 == e2 {
			t.Fatal("removing a key left the passport as it was")
		}

		readerKey, _ := e.agent("Reader", issuer.ScopeSearch)
		wantProblem(t, e.do(readerKey, "POST", "/api/agents/me/holder-keys/nonce", ""), 403, issuer.CodeInsufficientScope)
		wantProblem(t, e.put(readerKey, []issuer.HolderKeyProof{}), 403, issuer.CodeInsufficientScope)
		wantProblem(t, e.do(aKey, "POST", "/api/agents/me/holder-keys/nonce", "{}"), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(aKey, "GET", "/api/agents/me/holder-keys?all=1", ""), 400, issuer.CodeInvalid)
	})
}
