package issuing_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/issuing/issuingtest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

var (
	issuedAt = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	testKey  = []byte("0123456789abcdef0123456789abcdef")
)

const testIssuer = "https://issuer.test"

func newWorld(seed uint64) *issuingtest.World { return issuingtest.NewWorld(seed, issuedAt) }

type shape = issuingtest.Shape

// signer returns a deterministic Ed25519 signer and a verifier reading a
// trust file for it.
func signer(t testing.TB) (*passport.Signer, *verifier.Verifier) {
	t.Helper()
	seed := rand.NewChaCha8([32]byte{7})
	k, err := passport.GenerateKey(passport.EdDSA, seed)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.NewTrust(testIssuer, verifier.TrustedKey{Key: k.Public()})
	if err != nil {
		t.Fatal(err)
	}
	// Through a trust file, as a third party would hold it.
	file, err := trust.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if trust, err = verifier.ParseTrust(file); err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust, verifier.WithClock(func() time.Time { return issuedAt.Add(time.Minute) }))
	if err != nil {
		t.Fatal(err)
	}
	return passport.NewSigner(k), v
}

func options() issuing.Options {
	return issuing.Options{Issuer: testIssuer, IssuedAt: issuedAt}
}
