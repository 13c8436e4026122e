package keyring_test

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
)

var update = flag.Bool("update", false, "rewrite the golden publication files")

// goldenKey is a fixed key: its secret is SHA-256 of "passportkit keyring
// golden: " and the label.
func goldenKey(t *testing.T, alg passport.Algorithm, label string) *passport.PrivateKey {
	t.Helper()
	secret := sha256.Sum256([]byte("passportkit keyring golden: " + label))
	k, err := passport.NewPrivateKey(alg, secret[:])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestPublicationGolden pins what the issuer publishes (SPEC §10.1) through
// a fixed history of rotations and a withdrawal: which keys, in which
// order, with which windows, byte for byte, on every engine. The files in
// testdata/publication are the vectors; -update rewrites them.
func TestPublicationGolden(t *testing.T) {
	each(t, func(t *testing.T, fx *fixture) {
		if err := os.MkdirAll(fx.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		keys := map[string]*passport.PrivateKey{
			"a": goldenKey(t, passport.EdDSA, "a"),
			"b": goldenKey(t, passport.ES256, "b"),
			"c": goldenKey(t, passport.EdDSA, "c"),
		}
		for _, k := range keys {
			b, _ := k.MarshalJSON()
			if err := os.WriteFile(filepath.Join(fx.dir, k.Public().KeyID()+".jwk"), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		at := func(s string) {
			ts, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatal(err)
			}
			fx.clock.mu.Lock()
			fx.clock.t = ts
			fx.clock.mu.Unlock()
		}
		rotate := func(name string) {
			if _, err := fx.ring.Rotate(fx.ctx, keys[name].Public().KeyID(), ""); err != nil {
				t.Fatal(err)
			}
		}
		snapshot := func(step string) {
			t.Helper()
			trust, err := fx.ring.TrustFile(fx.ctx)
			if err != nil {
				t.Fatal(err)
			}
			jwks, err := fx.ring.JWKS(fx.ctx)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, step+".trust.json", trust)
			golden(t, step+".jwks.json", jwks)
		}

		at("2026-01-01T00:00:00Z")
		rotate("a")
		snapshot("1-first-key")
		at("2026-02-01T00:00:00Z")
		rotate("b")
		at("2026-02-15T12:30:00Z")
		rotate("c")
		snapshot("2-two-rotations")
		// a retired at 2026-02-01T00:00:00Z: published until 30 days + 24 h later.
		at("2026-03-03T23:59:59Z")
		snapshot("3-last-second-of-a")
		at("2026-03-04T00:00:00Z")
		snapshot("4-a-unpublished")
		at("2026-03-05T00:00:00Z")
		if _, err := fx.ring.Retire(fx.ctx, keys["b"].Public().KeyID(), true); err != nil {
			t.Fatal(err)
		}
		snapshot("5-b-withdrawn")
	})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "publication", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs:\ngot  %s\nwant %s", name, got, want)
	}
}
