package issuing_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
)

// The SHA-256 over every bundle and evidence file TestDifferential issues,
// as the reference route (each record through encoding/json and RFC 8785,
// each bundle through Bundle.Encode, the passportHash read back from the
// signed snapshot) wrote them before the direct encoders replaced it: for
// the random subjects, and for the two subjects at and beyond the
// collection limits (not in -short). The seeds, shapes, pseudonym key and
// signing key are fixed, so a figure moves only if a signed byte does.
const (
	differentialDigest       = "4793a58afc2725ffe722870c6b96252f63eec691e46ba91b6dc19ee7b3c7bad3"
	differentialLimitsDigest = "a22be92c4912234e4e100a4a2376a360fe529e9cbb33223db9de0bbd513490c0"
)

// TestDifferential issues passports for seeded random subjects, some
// beyond the collection limits, and checks every byte of the issuing path
// against the reference route: each leaf is jcs(encoding/json(record)),
// each bundle is what Bundle.Encode writes for its members, the
// passportHash is the signed snapshot's, and the bytes of every bundle and
// evidence file together are the ones the reference route issued
// (differentialDigest).
func TestDifferential(t *testing.T) {
	sg, _ := signer(t)
	type run struct {
		seed  uint64
		shape shape
	}
	var runs []run
	for seed := range uint64(24) {
		runs = append(runs, run{seed, shape{Memories: 3 + int(seed*13%90), Events: 10 + int(seed*37%700),
			Agents: 1 + int(seed%15), Operators: 1 + int(seed%6), Capabilities: int(seed % 5)}})
	}
	digest := sha256.New()
	for _, r := range runs {
		s := newWorld(r.seed).Subject(r.shape)
		for _, d := range []issuing.Disclosure{issuing.DisclosePreviews, issuing.DiscloseAll, issuing.DiscloseNone} {
			out := issue(t, s, testKey, sg, options(), d)
			checkReference(t, out)
			digest.Write(out.Bundle)
			digest.Write(out.EvidenceFile)
		}
	}
	if got := hex.EncodeToString(digest.Sum(nil)); got != differentialDigest {
		t.Errorf("the issued bytes have digest %s; the reference route's is %s", got, differentialDigest)
	}
	if testing.Short() {
		return
	}
	// At and beyond the limits: truncation decides which records are kept.
	digest.Reset()
	for _, size := range [][2]int{{evidence.MaxMemories, evidence.MaxReports}, {2_400, 13_000}} {
		out := issue(t, limitSubject(size[0], size[1]), testKey, sg, options(), issuing.DisclosePreviews)
		checkReference(t, out)
		digest.Write(out.Bundle)
		digest.Write(out.EvidenceFile)
	}
	if got := hex.EncodeToString(digest.Sum(nil)); got != differentialLimitsDigest {
		t.Errorf("the issued bytes at the limits have digest %s; the reference route's is %s", got, differentialLimitsDigest)
	}
}

// checkReference checks one issued passport against the reference route.
func checkReference(t *testing.T, out *issuing.Issued) {
	t.Helper()
	b, err := passport.ParseBundleUnverified(out.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, out.Bundle) {
		t.Fatalf("the bundle differs from Bundle.Encode's:\n%s\n%s", out.Bundle, enc)
	}
	snap, _, err := b.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	if snap.PassportHash != out.PassportHash {
		t.Fatalf("passportHash %s; the snapshot's is %s", out.PassportHash, snap.PassportHash)
	}
	set := parse(t, out.EvidenceFile)
	var file struct {
		Evidence []json.RawMessage `json:"evidence"`
	}
	if err := json.Unmarshal(out.EvidenceFile, &file); err != nil {
		t.Fatal(err)
	}
	for i, r := range set.Records() {
		m, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jcs.Transform(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(file.Evidence[i], want) {
			t.Fatalf("leaf %d differs from jcs(encoding/json):\n%s\n%s", i, file.Evidence[i], want)
		}
	}
}
