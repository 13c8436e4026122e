package passport

import (
	"bytes"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
)

// TestSignTree: a bundle signed over a prebuilt tree is byte-identical to
// SignCanonical's, and a tree of other leaves is refused.
func TestSignTree(t *testing.T) {
	key, err := GenerateKey(EdDSA, bytes.NewReader(make([]byte, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSigner(key)
	at := NewTime(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	p := Passport{PassportVersion: Version, TrustModelVersion: TrustModelVersion, Issuer: "https://issuer.example",
		Subject: Subject{ID: "agt_x", Name: "x"}, IssuedAt: at, ExpiresAt: NewTime(at.Add(time.Hour)),
		TrustLevel: "new", Policies: DefaultPolicies()}
	leaves := [][]byte{[]byte(`{"id":"ev_1"}`), []byte(`{"id":"ev_2"}`), []byte(`{"id":"ev_3"}`)}
	var lh evidence.LeafHasher
	hashes := make([]evidence.Hash, len(leaves))
	for i, l := range leaves {
		hashes[i] = lh.Sum(l)
	}
	q := p
	want, err := s.SignCanonical(&q, leaves, []int{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	q = p
	got, hash, err := s.SignTree(&q, evidence.NewTree(hashes), leaves, []int{0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("SignTree differs from SignCanonical:\n%s\n%s", got, want)
	}
	// The bundle written member by member is the one Bundle.Encode
	// canonicalises, and the hash returned is the snapshot's.
	b, err := ParseBundleUnverified(got)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, enc) {
		t.Fatalf("SignTree's bundle differs from Bundle.Encode's:\n%s\n%s", got, enc)
	}
	snap, _, err := b.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	if snap.PassportHash != hash {
		t.Fatalf("SignTree returned passportHash %s; the snapshot's is %s", hash, snap.PassportHash)
	}
	q = p
	if _, _, err := s.SignTree(&q, evidence.NewTree(hashes[:2]), leaves, nil); err == nil {
		t.Fatal("a tree of two leaves signed three records")
	}
	q = p
	if _, _, err := s.SignTree(&q, evidence.NewTree(hashes), [][]byte{leaves[0], leaves[1], []byte(`[]`)}, nil); err == nil {
		t.Fatal("a leaf that is no JSON object was signed")
	}
	q = p
	if _, _, err := s.SignTree(&q, evidence.NewTree(hashes), leaves, []int{3}); err == nil {
		t.Fatal("a leaf beyond the tree was disclosed")
	}
}
