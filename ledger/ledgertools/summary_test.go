package ledgertools

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

func readLedgerTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLedgerSummarySignature covers what the scripts cannot: a valid
// signature moved onto another summary, and key validity windows.
func TestLedgerSummarySignature(t *testing.T) {
	key, err := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	signer := passport.NewSigner(key)
	text := []byte(readLedgerTestdata(t, "example.md"))
	asOf, _ := ledger.ParseDate("2026-10-22")
	shop, err := Share(text, "shop.example", asOf, signer)
	if err != nil {
		t.Fatal(err)
	}
	courier, err := Share(text, "agent:courier-12", asOf, signer)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.NewTrust("agent:buyer-7", verifier.TrustedKey{Key: key.Public()})
	if err != nil {
		t.Fatal(err)
	}
	if out := CheckSummary(shop.Shared, shop.ID, shop.JWS, trust); !*out.Matches || !out.Signature.Verified || out.Signature.Signer != "agent:buyer-7" {
		t.Errorf("signed summary: %+v %+v", out, out.Signature)
	}
	// The courier's signature on the shop's summary: valid JWS, wrong id.
	out := CheckSummary(shop.Shared, shop.ID, courier.JWS, trust)
	if out.Signature.Verified || out.Signature.Reason != string(passport.ReasonSummaryIDMismatch) {
		t.Errorf("swapped signature: %+v", out.Signature)
	}
	// A JWS of another type, such as a passport credential, is refused.
	other, _ := signer.SignCompact([]byte(shop.ID), passport.JWSType)
	if out := CheckSummary(shop.Shared, shop.ID, other, trust); out.Signature.Verified || out.Signature.Reason != string(passport.ReasonJWSType) {
		t.Errorf("passport-typed JWS: %+v", out.Signature)
	}
	// A key whose window ends before the summary's day.
	expired, _ := verifier.NewTrust("agent:buyer-7", verifier.TrustedKey{Key: key.Public(), NotAfter: time.Date(2026, 10, 21, 23, 59, 0, 0, time.UTC)})
	if out := CheckSummary(shop.Shared, shop.ID, shop.JWS, expired); out.Signature.Verified || out.Signature.Reason != string(passport.ReasonKeyWindow) {
		t.Errorf("expired key: %+v", out.Signature)
	}
	within, _ := verifier.NewTrust("agent:buyer-7", verifier.TrustedKey{Key: key.Public(), NotBefore: time.Date(2026, 10, 22, 12, 0, 0, 0, time.UTC)})
	if out := CheckSummary(shop.Shared, shop.ID, shop.JWS, within); !out.Signature.Verified {
		t.Errorf("key valid from midday of the summary's day: %+v", out.Signature)
	}
}
