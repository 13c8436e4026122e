package passport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

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
	bundle, _, err := s.SignTree(p, evidence.NewTree(hashes), leaves, disclose)
	return bundle, err
}

// SignTree is SignCanonical for a caller that has already built the
// evidence tree over the leaves (an issuer needs the root before it signs):
// tree must be the tree of exactly these leaves, each hashed as
// [evidence.LeafHasher] does. SignTree checks that the tree has one leaf per
// record and that each leaf is a JSON object's bytes; it does not hash the
// leaves again. It returns the bundle and the passport's passportHash.
//
// The bundle is written member by member, not through [Bundle.Encode]:
// the snapshot is canonical by construction and the leaves are canonical
// by SignTree's contract, so the result is the canonical bundle without
// parsing it again.
func (s *Signer) SignTree(p *Passport, tree *evidence.Tree, leaves [][]byte, disclose []int) (bundle []byte, passportHash string, err error) {
	if tree.Size() != len(leaves) {
		return nil, "", fmt.Errorf("passport: the evidence tree has %d leaves for %d records", tree.Size(), len(leaves))
	}
	for i, c := range leaves {
		if len(c) < 2 || c[0] != '{' || c[len(c)-1] != '}' {
			return nil, "", fmt.Errorf("passport: evidence record %d is not a JSON object", i)
		}
	}
	doc := *p
	doc.normalize()
	doc.EvidenceRoot = tree.Root().String()
	doc.EvidenceCount = len(leaves)
	if err := doc.Validate(); err != nil {
		return nil, "", fmt.Errorf("passport: %w", err)
	}
	snapshot, body, err := marshalSnapshot(&doc)
	if err != nil {
		return nil, "", err
	}
	if err := checkSignedSkills(snapshot); err != nil {
		return nil, "", fmt.Errorf("passport: %w", err)
	}
	credential, err := s.SignCompact(snapshot, JWSType)
	if err != nil {
		return nil, "", err
	}

	if !slices.IsSorted(disclose) || len(slices.Compact(slices.Clone(disclose))) != len(disclose) {
		return nil, "", fmt.Errorf("passport: disclosed indices must be sorted and distinct")
	}
	size := len(credential) + len(snapshot) + 96
	for _, i := range disclose {
		if i < 0 || i >= len(leaves) {
			return nil, "", fmt.Errorf("passport: disclose: index %d out of range [0,%d)", i, len(leaves))
		}
		size += len(leaves[i]) + 48 + 67*bits.Len(uint(len(leaves)))
	}
	out := make([]byte, 0, size)
	out = append(out, `{"bundleVersion":`...)
	out = strconv.AppendQuote(out, BundleVersion)
	out = append(out, `,"credential":"`...)
	out = append(out, credential...) // base64url and dots: nothing to escape
	out = append(out, `","evidence":[`...)
	for n, i := range disclose {
		proof, err := tree.Proof(i)
		if err != nil {
			return nil, "", fmt.Errorf("passport: disclose: %w", err)
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"index":`...)
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, `,"leaf":`...)
		out = append(out, leaves[i]...)
		out = append(out, `,"proof":[`...)
		for k, h := range proof {
			if k > 0 {
				out = append(out, ',')
			}
			out = append(out, '"')
			out = hex.AppendEncode(out, h[:])
			out = append(out, '"')
		}
		out = append(out, "]}"...)
	}
	out = append(out, `],"snapshot":`...)
	out = append(out, snapshot...)
	out = append(out, '}')
	if len(out) > MaxBundleSize {
		return nil, "", errorf(ReasonBundleTooLarge, "the bundle is %d bytes; the limit is %d: disclose fewer records", len(out), MaxBundleSize)
	}
	return out, PassportHash(body), nil
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
	snapshot, _, err := marshalSnapshot(&doc)
	return snapshot, err
}

// marshalSnapshot is MarshalSnapshot for a normalised doc; it also returns
// the canonical passport body the passportHash is taken over.
func marshalSnapshot(doc *Passport) (snapshot, body []byte, err error) {
	if body, err = Marshal(doc); err != nil {
		return nil, nil, err
	}
	if HasClaims(doc.PassportVersion) {
		snapshot, err = claimsSnapshotFor(doc, body)
		return snapshot, body, err
	}
	return snapshotFor(body), body, nil
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
