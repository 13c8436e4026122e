package passport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-jose/go-jose/v4"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cjson"
)

// Signer signs passports, and other payloads under the same JWS profile,
// with one issuer key.
type Signer struct {
	key *PrivateKey
}

// NewSigner returns a Signer for key.
func NewSigner(key *PrivateKey) *Signer { return &Signer{key: key} }

// Key returns the signer's public key.
func (s *Signer) Key() *PublicKey { return s.key.Public() }

// SignCompact signs payload as a compact JWS whose protected header holds
// exactly alg, kid (the key's thumbprint) and typ.
func (s *Signer) SignCompact(payload []byte, typ string) (string, error) {
	opts := (&jose.SignerOptions{}).WithType(jose.ContentType(typ))
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(s.key.pub.alg), Key: opaqueKey{s.key}}, opts)
	if err != nil {
		return "", fmt.Errorf("passport: signer: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("passport: sign: %w", err)
	}
	return jws.CompactSerialize()
}

// Sign issues p as a bundle. records are the passport's evidence records,
// each a JSON object, in leaf order; Sign canonicalises each one, builds the
// evidence tree, sets p's EvidenceRoot and EvidenceCount, signs the
// snapshot, and discloses the records at the indices in disclose (sorted,
// no repeats) with their inclusion proofs. The encoded bundle must fit in
// MaxBundleSize.
func (s *Signer) Sign(p *Passport, records []json.RawMessage, disclose []int) ([]byte, error) {
	leaves := make([][]byte, len(records))
	for i, r := range records {
		c, err := Canonicalize(r)
		if err != nil {
			return nil, fmt.Errorf("passport: evidence record %d: %w", i, err)
		}
		leaves[i] = c
	}
	return s.SignCanonical(p, leaves, disclose)
}

// SignCanonical is Sign for records already in canonical form, as
// [evidence.Record.Canonical] writes them: it hashes the leaves as they are
// and does not canonicalise them again, which at ten thousand records is
// most of the cost of signing. A leaf that is not canonical JSON makes a
// bundle that verifiers refuse; SignCanonical checks only that each leaf
// is a JSON object's bytes.
func (s *Signer) SignCanonical(p *Passport, leaves [][]byte, disclose []int) ([]byte, error) {
	hashes := make([]evidence.Hash, len(leaves))
	var lh evidence.LeafHasher
	for i, c := range leaves {
		hashes[i] = lh.Sum(c)
	}
	return s.SignTree(p, evidence.NewTree(hashes), leaves, disclose)
}

// SignTree is SignCanonical for a caller that has already built the
// evidence tree over the leaves (an issuer needs the root before it signs):
// tree must be the tree of exactly these leaves, each hashed as
// [evidence.LeafHasher] does. SignTree checks that the tree has one leaf per
// record and that each leaf is a JSON object's bytes; it does not hash the
// leaves again.
func (s *Signer) SignTree(p *Passport, tree *evidence.Tree, leaves [][]byte, disclose []int) ([]byte, error) {
	if tree.Size() != len(leaves) {
		return nil, fmt.Errorf("passport: the evidence tree has %d leaves for %d records", tree.Size(), len(leaves))
	}
	for i, c := range leaves {
		if len(c) < 2 || c[0] != '{' || c[len(c)-1] != '}' {
			return nil, fmt.Errorf("passport: evidence record %d is not a JSON object", i)
		}
	}
	doc := *p
	doc.normalize()
	doc.EvidenceRoot = tree.Root().String()
	doc.EvidenceCount = len(leaves)
	if err := doc.Validate(); err != nil {
		return nil, fmt.Errorf("passport: %w", err)
	}
	snapshot, err := MarshalSnapshot(&doc)
	if err != nil {
		return nil, err
	}
	if err := checkSignedSkills(snapshot); err != nil {
		return nil, fmt.Errorf("passport: %w", err)
	}
	credential, err := s.SignCompact(snapshot, JWSType)
	if err != nil {
		return nil, err
	}

	if !slices.IsSorted(disclose) || len(slices.Compact(slices.Clone(disclose))) != len(disclose) {
		return nil, fmt.Errorf("passport: disclosed indices must be sorted and distinct")
	}
	bundle := Bundle{BundleVersion: BundleVersion, Credential: credential, Snapshot: snapshot, Evidence: []Disclosure{}}
	for _, i := range disclose {
		proof, err := tree.Proof(i)
		if err != nil {
			return nil, fmt.Errorf("passport: disclose: %w", err)
		}
		if proof == nil {
			proof = []evidence.Hash{}
		}
		bundle.Evidence = append(bundle.Evidence, Disclosure{Index: i, Leaf: leaves[i], Proof: proof})
	}
	out, err := bundle.Encode()
	if err != nil {
		return nil, err
	}
	if len(out) > MaxBundleSize {
		return nil, errorf(ReasonBundleTooLarge, "the bundle is %d bytes; the limit is %d: disclose fewer records", len(out), MaxBundleSize)
	}
	return out, nil
}

// checkSignedSkills checks every skill passport of a snapshot over the
// bytes that are about to be signed (SPEC.md §4.14).
func checkSignedSkills(snapshot []byte) error {
	doc, err := cjson.Parse(snapshot, cjson.Options{Canonical: true, IndexDepth: 2, IndexPath: []string{"passport", "skillPassports"}})
	if err != nil {
		return JSONError(err)
	}
	body, _ := doc.Root().Get("passport")
	sps, ok := body.Get("skillPassports")
	if !ok {
		return nil
	}
	var version string
	if tv, ok := body.Get("trustModelVersion"); ok {
		version, _ = tv.Text()
	}
	form, err := SkillFormOf(version)
	if err != nil {
		return err
	}
	return CheckIndexedSkillPassports(sps, form)
}

// MarshalSnapshot returns the canonical signed payload for p:
// {"passport":<canonical p>,"passportHash":"<hex SHA-256 of those bytes>"},
// and from passportVersion 0.2 on also p's [Claims] (SPEC.md §7).
func MarshalSnapshot(p *Passport) ([]byte, error) {
	doc := *p
	doc.normalize()
	body, err := Marshal(&doc)
	if err != nil {
		return nil, err
	}
	if HasClaims(doc.PassportVersion) {
		return claimsSnapshotFor(&doc, body)
	}
	return snapshotFor(body), nil
}

// snapshotFor wraps a canonical passport body. Members sort as "passport" <
// "passportHash", so the result is canonical by construction.
func snapshotFor(body []byte) []byte {
	h := sha256.Sum256(body)
	out := make([]byte, 0, len(body)+96)
	out = append(out, `{"passport":`...)
	out = append(out, body...)
	out = append(out, `,"passportHash":"`...)
	out = hex.AppendEncode(out, h[:])
	return append(out, `"}`...)
}

// PassportHash returns the passportHash of a canonical passport body.
func PassportHash(body []byte) string {
	h := sha256.Sum256(body)
	return hex.EncodeToString(h[:])
}
