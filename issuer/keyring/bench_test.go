package keyring_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// BenchmarkActive measures what the issuing code pays to get the active
// signer (one query for the keys; the private key is cached after the
// first read) against the cost of the signature it then makes over a
// 2 KiB payload, measured in the same loop: active/sign is their ratio.
// Ten retired keys are recorded, as after years of monthly rotations
// within the publication window.
func BenchmarkActive(b *testing.B) {
	for _, engine := range storetest.Engines(b) {
		b.Run(string(engine), func(b *testing.B) {
			ctx := context.Background()
			db := storetest.Open(b, engine, store.Options{})
			ring, err := keyring.New(db, keyring.Config{Issuer: testIssuer, Dir: filepath.Join(b.TempDir(), "keys")})
			if err != nil {
				b.Fatal(err)
			}
			for range 11 {
				if _, err := ring.Rotate(ctx, "", passport.EdDSA); err != nil {
					b.Fatal(err)
				}
			}
			payload := make([]byte, 2048)
			for i := range payload {
				payload[i] = 'a' + byte(i%26)
			}
			var active, sign time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				s, _, err := ring.Active(ctx)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := s.SignCompact(payload, passport.JWSType); err != nil {
					b.Fatal(err)
				}
				active += t1.Sub(t0)
				sign += time.Since(t1)
			}
			b.ReportMetric(float64(active)/float64(sign), "active/sign")
			b.ReportMetric(float64(active.Nanoseconds())/float64(b.N), "active-ns/op")
		})
	}
}
