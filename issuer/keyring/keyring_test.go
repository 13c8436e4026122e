package keyring_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

const testIssuer = "https://issuer.test"

// clock is a clock the test moves by hand, shared by the store and the
// keyring.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type fixture struct {
	ctx   context.Context
	db    *store.DB
	ring  *keyring.Keyring
	clock *clock
	dir   string
}

// each runs f on every engine with a fresh store and keyring.
func each(t *testing.T, f func(t *testing.T, fx *fixture)) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			db := storetest.Open(t, engine, store.Options{Now: c.Now})
			dir := filepath.Join(t.TempDir(), "keys")
			ring, err := keyring.New(db, keyring.Config{Issuer: testIssuer, Dir: dir, Now: c.Now})
			if err != nil {
				t.Fatal(err)
			}
			f(t, &fixture{ctx: context.Background(), db: db, ring: ring, clock: c, dir: dir})
		})
	}
}

// sign issues a small passport with s, issued now and valid for a day.
func (fx *fixture) sign(t *testing.T, s *passport.Signer) []byte {
	t.Helper()
	now := fx.clock.Now()
	p := &passport.Passport{
		PassportVersion: passport.Version, TrustModelVersion: passport.TrustModelVersion, Issuer: testIssuer,
		Subject:  passport.Subject{ID: "agt_keyring"},
		IssuedAt: passport.NewTime(now), ExpiresAt: passport.NewTime(now.Add(keyring.DefaultPassportTTL)),
		TrustLevel: "new", Policies: passport.DefaultPolicies(),
	}
	b, err := s.Sign(p, []json.RawMessage{json.RawMessage(`{"id":"ev_1"}`)}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (fx *fixture) active(t *testing.T) *passport.Signer {
	t.Helper()
	s, _, err := fx.ring.Active(fx.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// get fetches path from srv, with an If-None-Match when etag is set.
func get(t *testing.T, srv *httptest.Server, path, etag string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// verify checks bundle now against the trust file served by srv.
func (fx *fixture) verify(t *testing.T, srv *httptest.Server, bundle []byte) *verifier.Result {
	t.Helper()
	res, body := get(t, srv, "/.well-known/passport-trust.json", "")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("trust file: %d %s", res.StatusCode, body)
	}
	trust, err := verifier.ParseTrust(body)
	if err != nil {
		t.Fatalf("served trust file: %v", err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Verify(fx.ctx, bundle, verifier.AnySubject().At(fx.clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestServedTrustFileVerifiesAcrossRotationAndRetirement(t *testing.T) {
	each(t, func(t *testing.T, fx *fixture) {
		srv := httptest.NewServer(httpapi.New(service.New(fx.db, service.Options{}), nil, httpapi.Config{Keys: fx.ring}))
		defer srv.Close()

		if res, _ := get(t, srv, "/.well-known/passport-trust.json", ""); res.StatusCode != http.StatusNotFound {
			t.Fatalf("trust file with no key: %d, want 404", res.StatusCode)
		}
		created, err := fx.ring.EnsureActive(fx.ctx, passport.EdDSA)
		if err != nil || created == nil {
			t.Fatalf("first key: %+v, %v", created, err)
		}
		again, err := fx.ring.EnsureActive(fx.ctx, passport.EdDSA)
		if err != nil || again != nil {
			t.Fatalf("with a key active, EnsureActive created %+v, %v", again, err)
		}
		oldSigner := fx.active(t)
		oldKID := oldSigner.Key().KeyID()
		if oldKID != created.Key.KID {
			t.Fatalf("active kid %s, want the created %s", oldKID, created.Key.KID)
		}
		oldBundle := fx.sign(t, oldSigner)
		if r := fx.verify(t, srv, oldBundle); !r.Verified || r.KeyID != oldKID {
			t.Fatalf("bundle of the first key: %s (%s)", r.Reason, r.KeyID)
		}

		// The served documents: export-trust's bytes, an ETag, 304.
		res, served := get(t, srv, "/.well-known/passport-trust.json", "")
		exported, err := fx.ring.TrustFile(fx.ctx)
		if err != nil || !bytes.Equal(served, exported) {
			t.Fatalf("served trust file differs from the exported one (%v):\n%s\n%s", err, served, exported)
		}
		etag := res.Header.Get("ETag")
		if etag == "" || !strings.Contains(res.Header.Get("Cache-Control"), "max-age") {
			t.Fatalf("trust file headers: %v", res.Header)
		}
		if res, body := get(t, srv, "/.well-known/passport-trust.json", etag); res.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("If-None-Match: %d %q, want 304 and no body", res.StatusCode, body)
		}
		res, jwks := get(t, srv, "/.well-known/jwks.json", "")
		var set struct{ Keys []map[string]any }
		if err := json.Unmarshal(jwks, &set); err != nil || res.StatusCode != 200 || len(set.Keys) != 1 {
			t.Fatalf("jwks: %d %s %v", res.StatusCode, jwks, err)
		}
		for _, private := range []string{"d", "p", "q", "dp", "dq", "qi"} {
			if _, ok := set.Keys[0][private]; ok {
				t.Fatalf("jwks carries private member %q", private)
			}
		}
		if _, err := passport.ParsePublicKey(mustJSON(t, set.Keys[0])); err != nil || set.Keys[0]["kid"] != oldKID {
			t.Fatalf("jwks key %v: %v", set.Keys[0], err)
		}

		// Rotate: a new kid signs; the old bundle still verifies.
		fx.clock.Add(time.Hour)
		rot, err := fx.ring.Rotate(fx.ctx, "", passport.ES256)
		if err != nil {
			t.Fatal(err)
		}
		if rot.Retired == nil || rot.Retired.KID != oldKID || rot.Path == "" {
			t.Fatalf("rotation %+v", rot)
		}
		newBundle := fx.sign(t, fx.active(t))
		if r := fx.verify(t, srv, newBundle); !r.Verified || r.KeyID != rot.Active.KID || r.KeyID == oldKID {
			t.Fatalf("bundle after rotation: %s, kid %s, want verified by %s", r.Reason, r.KeyID, rot.Active.KID)
		}
		if r := fx.verify(t, srv, oldBundle); !r.Verified || r.KeyID != oldKID {
			t.Fatalf("the rotated-out key's bundle: %s", r.Reason)
		}
		if res, _ := get(t, srv, "/.well-known/passport-trust.json", etag); res.StatusCode != http.StatusOK {
			t.Fatalf("stale ETag after rotation: %d, want 200", res.StatusCode)
		}

		// The retired key signing after its window is refused.
		fx.clock.Add(time.Minute)
		if r := fx.verify(t, srv, fx.sign(t, oldSigner)); r.Verified || r.Reason != passport.ReasonKeyWindow {
			t.Fatalf("retired key signing after its window: %s, want %s", r.Reason, passport.ReasonKeyWindow)
		}

		// Once its publication ends the key leaves the trust file.
		fx.clock.Add(fx.ring.PublishFor())
		if r := fx.verify(t, srv, oldBundle); r.Verified || r.Reason != passport.ReasonKeyUnknown {
			t.Fatalf("after its publication: %s, want %s", r.Reason, passport.ReasonKeyUnknown)
		}
		trust, err := fx.ring.Trust(fx.ctx)
		if err != nil || len(trust.Keys) != 1 || trust.Keys[0].Key.KeyID() != rot.Active.KID {
			t.Fatalf("trust after publication ended: %+v, %v", trust, err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoosePermissionsAreRefused(t *testing.T) {
	each(t, func(t *testing.T, fx *fixture) {
		g, err := fx.ring.Rotate(fx.ctx, "", passport.EdDSA)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(g.Path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("key file mode %v, %v; want 0600", fi.Mode(), err)
		}
		if fi, err := os.Stat(fx.dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("key directory mode %v, %v; want 0700", fi.Mode(), err)
		}
		fresh := func() *keyring.Keyring { // no cached private keys
			r, err := keyring.New(fx.db, keyring.Config{Issuer: testIssuer, Dir: fx.dir, Now: fx.clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		before, _ := fx.db.SigningKeys(fx.ctx)
		for _, c := range []struct {
			path string
			mode fs.FileMode
			fix  fs.FileMode
		}{
			{g.Path, 0o640, 0o600},
			{g.Path, 0o604, 0o600},
			{fx.dir, 0o750, 0o700},
			{fx.dir, 0o701, 0o700},
		} {
			if err := os.Chmod(c.path, c.mode); err != nil {
				t.Fatal(err)
			}
			r := fresh()
			_, _, err := r.Active(fx.ctx)
			var pe *keyring.PermissionError
			if !errors.As(err, &pe) || pe.Path != c.path || !strings.Contains(err.Error(), "chmod") || issuer.ErrorCode(err) != issuer.CodeUnavailable {
				t.Fatalf("%s at %04o: %v, want a permission error naming it", c.path, c.mode, err)
			}
			if c.path == fx.dir {
				if _, err := r.Generate(fx.ctx, passport.EdDSA); !errors.Is(err, keyring.ErrLoosePermissions) {
					t.Fatalf("generate into an exposed directory: %v", err)
				}
			}
			if err := os.Chmod(c.path, c.fix); err != nil {
				t.Fatal(err)
			}
		}
		if after, _ := fx.db.SigningKeys(fx.ctx); !reflect.DeepEqual(before, after) {
			t.Fatalf("refusals changed the keys: %+v", after)
		}
		entries, _ := os.ReadDir(fx.dir)
		if len(entries) != 1 {
			t.Fatalf("%d files in the key directory after refusals, want 1", len(entries))
		}
		if _, _, err := fresh().Active(fx.ctx); err != nil {
			t.Fatalf("after chmod: %v", err)
		}

		// A key file named by the environment follows the same rule.
		k, err := passport.GenerateKey(passport.EdDSA, strings.NewReader(strings.Repeat("k", 32)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := k.MarshalJSON()
		file := filepath.Join(t.TempDir(), "issuer.jwk")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, _ := keyring.New(fx.db, keyring.Config{Issuer: testIssuer, Dir: fx.dir, KeyFile: file, Now: fx.clock.Now})
		if _, err := r.Rotate(fx.ctx, k.Public().KeyID(), ""); !errors.Is(err, keyring.ErrLoosePermissions) {
			t.Fatalf("exposed key file: %v", err)
		}
		if after, _ := fx.db.SigningKeys(fx.ctx); !reflect.DeepEqual(before, after) {
			t.Fatalf("the refused rotation changed the keys: %+v", after)
		}
		os.Chmod(file, 0o600)
		rot, err := r.Rotate(fx.ctx, k.Public().KeyID(), "")
		if err != nil || rot.Active.KID != k.Public().KeyID() || rot.Path != "" {
			t.Fatalf("rotation to the key file's key: %+v, %v", rot, err)
		}
		if s, _, err := r.Active(fx.ctx); err != nil || s.Key().KeyID() != k.Public().KeyID() {
			t.Fatalf("active signer from the key file: %v", err)
		}
	})
}

func TestKeysWithoutPrivateHalvesAndUnknownKids(t *testing.T) {
	each(t, func(t *testing.T, fx *fixture) {
		ready, err := fx.ring.Generate(fx.ctx, passport.EdDSA)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(ready.Path); err != nil {
			t.Fatal(err)
		}
		before, _ := fx.db.SigningKeys(fx.ctx)
		if _, err := fx.ring.Rotate(fx.ctx, ready.Key.KID, ""); !errors.Is(err, keyring.ErrPrivateKeyMissing) || issuer.ErrorCode(err) != issuer.CodeConflict {
			t.Fatalf("activating a key without its private half: %v", err)
		}
		if _, _, err := fx.ring.Active(fx.ctx); !errors.Is(err, keyring.ErrNoActiveKey) {
			t.Fatalf("no active key: %v", err)
		}
		if _, err := fx.ring.Retire(fx.ctx, "nosuchkid", false); issuer.ErrorCode(err) != issuer.CodeNotFound || !strings.Contains(err.Error(), "nosuchkid") {
			t.Fatalf("retiring an unknown kid: %v", err)
		}
		if _, err := fx.ring.Rotate(fx.ctx, "../../etc/passwd", ""); err == nil {
			t.Fatal("a path as kid was accepted")
		}
		if after, _ := fx.db.SigningKeys(fx.ctx); !reflect.DeepEqual(before, after) {
			t.Fatalf("refusals changed the keys: %+v", after)
		}
		list, err := fx.ring.List(fx.ctx)
		if err != nil || len(list) != 1 || list[0].Private != "missing" || list[0].Published {
			t.Fatalf("list: %+v, %v", list, err)
		}

		// The active key's file disappearing makes Active fail, clearly.
		rot, err := fx.ring.Rotate(fx.ctx, "", passport.EdDSA)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(rot.Path)
		r, _ := keyring.New(fx.db, keyring.Config{Issuer: testIssuer, Dir: fx.dir, Now: fx.clock.Now})
		if _, _, err := r.Active(fx.ctx); !errors.Is(err, keyring.ErrPrivateKeyMissing) || !strings.Contains(err.Error(), rot.Active.KID) {
			t.Fatalf("active key without its file: %v", err)
		}
		if _, err := r.EnsureActive(fx.ctx, passport.EdDSA); !errors.Is(err, keyring.ErrPrivateKeyMissing) {
			t.Fatalf("EnsureActive replaced an active key whose file is missing: %v", err)
		}
	})
}

// TestFailedRotationLeavesNoFile closes the database under a rotation: the
// key it generated is removed again.
func TestFailedRotationLeavesNoFile(t *testing.T) {
	each(t, func(t *testing.T, fx *fixture) {
		fx.db.Close()
		if _, err := fx.ring.Rotate(fx.ctx, "", passport.EdDSA); err == nil {
			t.Fatal("rotation on a closed database succeeded")
		}
		if _, err := fx.ring.Generate(fx.ctx, passport.EdDSA); err == nil {
			t.Fatal("generate on a closed database succeeded")
		}
		if entries, _ := os.ReadDir(fx.dir); len(entries) != 0 {
			t.Fatalf("%d key files left behind", len(entries))
		}
	})
}

// TestRotationStormStopsAtTheTrustFileLimit rotates until 64 keys are
// published: the next rotation is refused, changing nothing, and the trust
// file stays valid; withdrawing a key makes room again.
func TestRotationStormStopsAtTheTrustFileLimit(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	db := storetest.Open(t, store.SQLite, store.Options{Now: c.Now})
	ring, err := keyring.New(db, keyring.Config{Issuer: testIssuer, Dir: filepath.Join(t.TempDir(), "keys"), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var first string
	for i := range verifier.MaxTrustedKeys {
		rot, err := ring.Rotate(ctx, "", passport.EdDSA)
		if err != nil {
			t.Fatalf("rotation %d: %v", i, err)
		}
		if i == 0 {
			first = rot.Active.KID
		}
		c.Add(time.Second)
	}
	before, _ := db.SigningKeys(ctx)
	if _, err := ring.Rotate(ctx, "", passport.EdDSA); issuer.ErrorCode(err) != issuer.CodeConflict || !strings.Contains(err.Error(), "at most 64") {
		t.Fatalf("rotation beyond the limit: %v", err)
	}
	if after, _ := db.SigningKeys(ctx); !reflect.DeepEqual(before, after) {
		t.Fatal("the refused rotation changed the keys")
	}
	if _, err := ring.TrustFile(ctx); err != nil {
		t.Fatalf("trust file at the limit: %v", err)
	}
	if _, err := ring.Retire(ctx, first, true); err != nil {
		t.Fatal(err)
	}
	if _, err := ring.Rotate(ctx, "", passport.EdDSA); err != nil {
		t.Fatalf("rotation after a withdrawal: %v", err)
	}
}
