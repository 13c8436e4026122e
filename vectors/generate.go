package vectors

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"strings"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
	"github.com/remnant/passportkit/verifier"
)

// The fixed clock of every vector.
var (
	verifyAt  = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	issuedAt  = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	expiresAt = time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
)

// Issuer is the issuer named by the vectors' trust file.
const Issuer = "https://issuer.example"

// fixture holds the fixed keys. Secrets are SHA-256 of a label, so anyone
// can rebuild them; they protect nothing.
type fixture struct {
	ed, es, edOld, rogue *passport.PrivateKey
	// holder1 to holder3 and holderES are holder keys (SPEC.md §11.6):
	// the presented passports name holder1, holder2 and holderES.
	holder1, holder2, holder3, holderES *passport.PrivateKey
	// raw holds each key as the standard library has it, to sign what
	// passport.PrivateKey would refuse to: an ed25519.PrivateKey or an
	// *ecdsa.PrivateKey.
	raw map[*passport.PrivateKey]any
}

func secret(label string) []byte {
	s := sha256.Sum256([]byte("passportkit vectors: " + label))
	return s[:]
}

func newFixture() (*fixture, error) {
	f := &fixture{raw: map[*passport.PrivateKey]any{}}
	for _, k := range []struct {
		key   **passport.PrivateKey
		alg   passport.Algorithm
		label string
	}{
		{&f.ed, passport.EdDSA, "ed25519 key"}, {&f.es, passport.ES256, "p256 key"},
		{&f.edOld, passport.EdDSA, "retired ed25519 key"}, {&f.rogue, passport.EdDSA, "untrusted ed25519 key"},
		{&f.holder1, passport.EdDSA, "holder key 1"}, {&f.holder2, passport.EdDSA, "holder key 2"},
		{&f.holder3, passport.EdDSA, "holder key 3"}, {&f.holderES, passport.ES256, "holder p256 key"},
	} {
		key, err := passport.NewPrivateKey(k.alg, secret(k.label))
		if err != nil {
			return nil, err
		}
		*k.key = key
		if k.alg == passport.EdDSA {
			f.raw[key] = ed25519.NewKeyFromSeed(secret(k.label))
		} else if f.raw[key], err = ecdsa.ParseRawPrivateKey(elliptic.P256(), secret(k.label)); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// trust returns the trust file of every vector: the EdDSA and ES256 keys
// with open windows, and a retired key valid only during 2025.
func (f *fixture) trust() ([]byte, error) {
	t, err := verifier.NewTrust(Issuer,
		verifier.TrustedKey{Key: f.ed.Public()},
		verifier.TrustedKey{Key: f.es.Public()},
		verifier.TrustedKey{Key: f.edOld.Public(),
			NotBefore: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
			NotAfter:  time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)},
	)
	if err != nil {
		return nil, err
	}
	return t.MarshalJSON()
}

// legacyVersion is the passportVersion of the cases written before
// version 0.2; they stay byte for byte as they were, and valid.
const legacyVersion = "0.1"

// basePassport is a realistic passport of version 0.1 whose skill passports
// are assessed from baseEvidence as of its issuance day.
func basePassport() *passport.Passport { return passportFor(baseEvidence()) }

// passportFor is basePassport with skill passports assessed from recs.
func passportFor(recs []evidence.Record) *passport.Passport {
	return passportAs(recs, passport.TrustModelVersion)
}

// passportAs is passportFor under the given trust model version.
func passportAs(recs []evidence.Record, version string) *passport.Passport {
	p := &passport.Passport{
		PassportVersion:      legacyVersion,
		TrustModelVersion:    version,
		Issuer:               Issuer,
		Subject:              passport.Subject{ID: "agt_7Qm2xKp9Lr4Vt8Wn", Name: "index-tuner", Description: "Tunes PostgreSQL indexes for write-heavy workloads."},
		IssuedAt:             passport.NewTime(issuedAt),
		ExpiresAt:            passport.NewTime(expiresAt),
		DeclaredCapabilities: []string{"PostgreSQL indexing", "query optimization"},
		PublicActivity:       passport.Activity{MemoriesPublished: 14, MemoriesConsumed: 52, FeedbackGiven: 9},
		DomainReputation: []passport.DomainReputation{
			{Domain: "postgresql", Score: 7.25, Confidence: 0.6, SampleSize: 6, PositiveEvents: 7, NegativeEvents: 1, UpdatedAt: passport.NewTime(time.Date(2026, 4, 20, 12, 0, 0, 0, time.UTC))},
			{Domain: "sqlite", Score: -0.5, Confidence: 0.1, SampleSize: 1, PositiveEvents: 0, NegativeEvents: 1, UpdatedAt: passport.NewTime(time.Date(2026, 2, 3, 8, 30, 0, 0, time.UTC))},
		},
		ReputationScore: 6.75,
		TrustLevel:      "observed",
		Policies:        passport.DefaultPolicies(),
	}
	set, err := evidence.NewSet(recs, false)
	if err != nil {
		panic(err)
	}
	at := evidence.MustDate(issuedAt.Format("2006-01-02"))
	for _, skill := range []string{"PostgreSQL indexing", "SQLite"} {
		a, err := skilltrust.Assess(set, skilltrust.Task{Skill: skill}, at)
		if err != nil {
			panic(err)
		}
		sp, err := a.SkillPassportAs(version)
		if err != nil {
			panic(err)
		}
		p.SkillPassports = append(p.SkillPassports, sp)
	}
	return p
}

// baseEvidence is the subject's evidence: outcome reports, corroborations
// and a publication about PostgreSQL indexing from several operators, and
// one failed SQLite attempt.
func baseEvidence() []evidence.Record {
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeFailure,
		evidence.OutcomeSuccess, evidence.OutcomePartial, evidence.OutcomeSuccess, evidence.OutcomeUncertain, evidence.OutcomeSuccess}
	var recs []evidence.Record
	for i, o := range outcomes {
		recs = append(recs, evidence.Record{
			ID: fmt.Sprintf("ev_%02d", i+1), Type: evidence.TypeOutcome, Outcome: o, Skill: "PostgreSQL indexing",
			Quality: evidence.QualityObservedReuse, Reporter: fmt.Sprintf("act_%d", i%5+1), Operator: fmt.Sprintf("op_%d", i%3+1),
			Ownership: evidence.OwnershipDistinct,
			Lineage:   &evidence.Lineage{Memory: fmt.Sprintf("mem_%d", i%4+1)},
			Context:   evidence.Context{Protocol: "postgres", Workload: "high-write-concurrency"},
			Date:      evidence.MustDate(fmt.Sprintf("2026-0%d-1%d", i%4+1, i)),
		})
	}
	recs[7].Skill, recs[7].Lineage = "SQLite", &evidence.Lineage{Memory: "mem_9"}
	return recs
}

// baseRecords are the canonical JSON of baseEvidence, in leaf order.
func baseRecords() []json.RawMessage { return canonicalRecords(baseEvidence()) }

func canonicalRecords(recs []evidence.Record) []json.RawMessage {
	out := make([]json.RawMessage, len(recs))
	for i, r := range recs {
		b, err := r.Canonical()
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

// draft is a bundle under construction. Each field has a valid default;
// a case changes what it breaks and assembles the rest.
type draft struct {
	f        *fixture
	body     []byte // canonical passport body
	hash     string // passportHash; "" means the right one
	payload  []byte // the signed bytes; nil means the snapshot
	snapshot []byte // the snapshot in the bundle; nil means the right one
	header   string // protected header JSON; "" means alg/kid/typ of key
	alg      string // algorithm for the default header
	key      *passport.PrivateKey
	sign     func(signingInput []byte) []byte // nil means the key's own signature
	sigB64   *string                          // overrides the encoded signature
	records  [][]byte                         // all leaves
	disclose []int
	tamper   func(entries []disclosure) // edits disclosures after proofs are made
	version  string
	// credential, when set, replaces the credential member's JSON value.
	credential []byte
	// edit, when set, rewrites the finished bundle bytes.
	edit func([]byte) []byte
	// claims, when set, are the JWT claims the snapshot carries beside
	// passport and passportHash (passportVersion 0.2 and later).
	claims map[string]any
}

type disclosure struct {
	index int
	leaf  []byte
	proof []evidence.Hash
}

// newDraft starts from the base passport, signed with the EdDSA key, with
// records 1, 4 and 6 disclosed.
func (f *fixture) newDraft(p *passport.Passport, records []json.RawMessage) *draft {
	d := &draft{f: f, key: f.ed, disclose: []int{1, 4, 6}, version: passport.BundleVersion}
	for _, r := range records {
		d.records = append(d.records, r)
	}
	if p == nil {
		p = basePassport()
	}
	d.setPassport(p)
	return d
}

// newClaimsDraft is newDraft for a passport of version 0.2 or later, whose
// snapshot carries p's JWT claims.
func (f *fixture) newClaimsDraft(p *passport.Passport, records []json.RawMessage) *draft {
	d := f.newDraft(p, records)
	d.claims = claimsOf(p)
	return d
}

// claimsOf returns the JWT claims of p as JSON members.
func claimsOf(p *passport.Passport) map[string]any {
	b, err := json.Marshal(passport.ClaimsOf(p))
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// setPassport sets the body from p, with the evidence root of d's records.
func (d *draft) setPassport(p *passport.Passport) {
	q := *p
	q.EvidenceRoot = d.root().String()
	q.EvidenceCount = len(d.records)
	body, err := passport.Marshal(&q)
	if err != nil {
		panic(err)
	}
	d.body = body
}

// setBody sets the body from p after edit changes its JSON members.
func (d *draft) setBody(p *passport.Passport, edit func(m map[string]any)) {
	d.setPassport(p)
	var m map[string]any
	if err := json.Unmarshal(d.body, &m); err != nil {
		panic(err)
	}
	edit(m)
	body, err := passport.Marshal(m)
	if err != nil {
		panic(err)
	}
	d.body = body
}

func (d *draft) hashes() []evidence.Hash {
	hs := make([]evidence.Hash, len(d.records))
	for i, r := range d.records {
		hs[i] = evidence.LeafHash(r)
	}
	return hs
}

func (d *draft) root() evidence.Hash { return evidence.Root(d.hashes()) }

// snapshotBytes returns the snapshot the bundle carries.
func (d *draft) snapshotBytes() []byte {
	if d.snapshot != nil {
		return d.snapshot
	}
	return d.signedSnapshot()
}

// signedSnapshot returns the snapshot made from the body, hash and claims.
func (d *draft) signedSnapshot() []byte {
	hash := d.hash
	if hash == "" {
		hash = passport.PassportHash(d.body)
	}
	if d.claims == nil {
		return []byte(`{"passport":` + string(d.body) + `,"passportHash":"` + hash + `"}`)
	}
	m := maps.Clone(d.claims)
	m["passport"], m["passportHash"] = json.RawMessage(d.body), hash
	b, err := passport.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (d *draft) headerJSON() string {
	if d.header != "" {
		return d.header
	}
	alg := d.alg
	if alg == "" {
		alg = string(d.key.Public().Algorithm())
	}
	return `{"alg":"` + alg + `","kid":"` + d.key.Public().KeyID() + `","typ":"` + passport.JWSType + `"}`
}

// rawSign signs with the fixture's raw copy of key.
func (f *fixture) rawSign(key *passport.PrivateKey, input []byte) []byte {
	switch raw := f.raw[key].(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(raw, input)
	case *ecdsa.PrivateKey:
		h := sha256.Sum256(input)
		der, err := raw.Sign(nil, h[:], crypto.SHA256)
		if err != nil {
			panic(err)
		}
		var sig struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(der, &sig); err != nil {
			panic(err)
		}
		out := make([]byte, 64)
		sig.R.FillBytes(out[:32])
		sig.S.FillBytes(out[32:])
		return out
	}
	panic("unknown key")
}

func (d *draft) compact() string {
	payload := d.payload
	if payload == nil {
		payload = d.signedSnapshot()
	}
	input := b64([]byte(d.headerJSON())) + "." + b64(payload)
	var sig string
	switch {
	case d.sigB64 != nil:
		sig = *d.sigB64
	case d.sign != nil:
		sig = b64(d.sign([]byte(input)))
	default:
		sig = b64(d.f.rawSign(d.key, []byte(input)))
	}
	return input + "." + sig
}

func (d *draft) disclosures() []disclosure {
	tree := evidence.NewTree(d.hashes())
	var out []disclosure
	for _, i := range d.disclose {
		p, err := tree.Proof(i)
		if err != nil {
			panic(err)
		}
		out = append(out, disclosure{index: i, leaf: d.records[i], proof: p})
	}
	if d.tamper != nil {
		d.tamper(out)
	}
	return out
}

// bytes assembles the bundle as canonical JSON, member by member.
func (d *draft) bytes() []byte {
	var b strings.Builder
	b.WriteString(`{"bundleVersion":"` + d.version + `","credential":`)
	if d.credential != nil {
		b.Write(d.credential)
	} else {
		b.WriteString(`"` + d.compact() + `"`)
	}
	b.WriteString(`,"evidence":[`)
	for i, e := range d.disclosures() {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"index":%d,"leaf":%s,"proof":[`, e.index, e.leaf)
		for j, h := range e.proof {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + h.String() + `"`)
		}
		b.WriteString("]}")
	}
	b.WriteString(`],"snapshot":`)
	b.Write(d.snapshotBytes())
	b.WriteString("}")
	out := []byte(b.String())
	if d.edit != nil {
		out = d.edit(out)
	}
	return out
}

// hmacSHA256 is for the HS256 confusion vector only.
func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// rehashSkill sets the assessmentHash of a skill passport, as decoded into a
// map, to the SHA-256 of its other members' canonical JSON.
func rehashSkill(sp map[string]any) {
	delete(sp, "assessmentHash")
	b, err := passport.Marshal(sp)
	if err != nil {
		panic(err)
	}
	sp["assessmentHash"] = passport.PassportHash(b)
}

// skillOf returns skill passport i of a passport decoded into a map.
func skillOf(m map[string]any, i int) map[string]any {
	return m["skillPassports"].([]any)[i].(map[string]any)
}

// nested returns n arrays nested in one another.
func nested(n int) any {
	var v any = []any{}
	for range n - 1 {
		v = []any{v}
	}
	return v
}

// passportAssessedOn is basePassport with skill passports for skills
// assessed from recs as of day, which may be before issuance.
func passportAssessedOn(recs []evidence.Record, day string, skills ...string) *passport.Passport {
	p := basePassport()
	p.SkillPassports = nil
	set, err := evidence.NewSet(recs, false)
	if err != nil {
		panic(err)
	}
	for _, skill := range skills {
		a, err := skilltrust.Assess(set, skilltrust.Task{Skill: skill}, evidence.MustDate(day))
		if err != nil {
			panic(err)
		}
		sp, err := a.SkillPassport()
		if err != nil {
			panic(err)
		}
		p.SkillPassports = append(p.SkillPassports, sp)
	}
	return p
}
