package passport

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
)

// treeSigner returns a deterministic signer and a passport for it to sign.
func treeSigner(t testing.TB) (*Signer, Passport) {
	t.Helper()
	key, err := GenerateKey(EdDSA, bytes.NewReader(make([]byte, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSigner(key)
	at := NewTime(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	p := Passport{PassportVersion: Version, TrustModelVersion: TrustModelVersion, Issuer: "https://issuer.example",
		Subject: Subject{ID: "agt_x", Name: "x"}, IssuedAt: at, ExpiresAt: NewTime(at.Add(time.Hour)),
		TrustLevel: "new", Policies: DefaultPolicies()}
	return s, p
}

// TestSignTree: a bundle signed over a prebuilt tree is byte-identical to
// SignCanonical's, and a tree of other leaves is refused.
func TestSignTree(t *testing.T) {
	s, p := treeSigner(t)
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
	checkSignedTree(t, got, hash)
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

// FuzzSignTree: for canonical leaves made from the input (members of any
// text, some disclosed), the bundle SignTree writes member by member is the
// one Bundle.Encode canonicalises, and its passportHash is the snapshot's.
func FuzzSignTree(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add(s, uint16(5))
	}
	f.Add("a\x00b\u2028c\"d\\e\xff", uint16(0xffff))
	s, p := treeSigner(f)
	f.Fuzz(func(t *testing.T, text string, mask uint16) {
		var leaves [][]byte
		var disclose []int
		for i, part := range strings.SplitN(text, "|", 12) {
			leaf, err := Marshal(map[string]any{"id": fmt.Sprint("ev_", i), part: []string{part}})
			if err != nil {
				t.Fatal(err)
			}
			leaves = append(leaves, leaf)
			if mask&(1<<i) != 0 {
				disclose = append(disclose, i)
			}
		}
		var lh evidence.LeafHasher
		hashes := make([]evidence.Hash, len(leaves))
		for i, l := range leaves {
			hashes[i] = lh.Sum(l)
		}
		q := p
		got, hash, err := s.SignTree(&q, evidence.NewTree(hashes), leaves, disclose)
		if err != nil {
			t.Fatal(err)
		}
		checkSignedTree(t, got, hash)
	})
}

// checkSignedTree checks a bundle SignTree wrote member by member against
// the one Bundle.Encode canonicalises, and the passportHash it returned
// against the snapshot's.
func checkSignedTree(t *testing.T, bundle []byte, hash string) {
	t.Helper()
	b, err := ParseBundleUnverified(bundle)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bundle, enc) {
		t.Fatalf("SignTree's bundle differs from Bundle.Encode's:\n%s\n%s", bundle, enc)
	}
	if snap, _, err := b.SnapshotUnverified(); err != nil || snap.PassportHash != hash {
		t.Fatalf("SignTree returned passportHash %s; the snapshot's is %s (%v)", hash, snap.PassportHash, err)
	}
}
