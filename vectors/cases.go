package vectors

import (
	"bytes"
	"crypto/ed25519"
	"encoding/asn1"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// generator builds one case. Each is small and names what it breaks.
type generator struct {
	name string
	fn   func(f *fixture) (Case, error)
}

// fails returns a negative case expecting reason from check.
func fails(desc, check string, reason passport.Reason, bundle []byte) (Case, error) {
	return Case{Description: desc, At: verifyAt, Check: check, Reason: string(reason), Bundle: bundle}, nil
}

// passes returns a positive case.
func passes(desc string, bundle []byte, err error) (Case, error) {
	return Case{Description: desc, At: verifyAt, Verified: true, Reason: string(passport.ReasonOK), Bundle: bundle}, err
}

// signed issues p over records through the real signing path.
func (f *fixture) signed(key *passport.PrivateKey, p *passport.Passport, records []json.RawMessage, disclose []int) ([]byte, error) {
	return passport.NewSigner(key).Sign(p, records, disclose)
}

func replaceOnce(b []byte, old, new string) []byte {
	if !bytes.Contains(b, []byte(old)) {
		panic(fmt.Sprintf("vectors: %q not found", old))
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// bigRecords returns the base records followed by more outcome reports, n
// in all.
func bigRecords(n int) []evidence.Record {
	recs := baseEvidence()
	for i := len(recs); i < n; i++ {
		recs = append(recs, evidence.Record{
			ID: fmt.Sprintf("ev_%04d", i+1), Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess,
			Skill: "PostgreSQL indexing", Quality: evidence.QualityObservedReuse,
			Reporter: fmt.Sprintf("act_%d", i%7+1), Operator: fmt.Sprintf("op_%d", i%5+1), Ownership: evidence.OwnershipDistinct,
			Lineage: &evidence.Lineage{Memory: fmt.Sprintf("mem_%d", i%40+1)},
			Context: evidence.Context{Protocol: "postgres", Version: "17", Workload: "high-write-concurrency", Environment: "kubernetes"},
			Date:    evidence.MustDate("2026-04-01").AddDays(-i % 300),
		})
	}
	return recs
}

func allIndices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

var generators = []generator{
	// Valid bundles.
	{"valid_eddsa", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, basePassport(), baseRecords(), []int{1, 4, 6})
		return passes("EdDSA passport with three of eight evidence leaves disclosed", b, err)
	}},
	{"valid_es256", func(f *fixture) (Case, error) {
		b, err := f.signed(f.es, basePassport(), baseRecords(), []int{0, 7})
		return passes("ES256 passport (deterministic RFC 6979 signature)", b, err)
	}},
	{"valid_minimal", func(f *fixture) (Case, error) {
		p := &passport.Passport{PassportVersion: legacyVersion, TrustModelVersion: passport.TrustModelVersion, Issuer: Issuer,
			Subject: passport.Subject{ID: "agt_min"}, IssuedAt: passport.NewTime(issuedAt), ExpiresAt: passport.NewTime(expiresAt)}
		b, err := f.signed(f.ed, p, nil, nil)
		return passes("minimal passport: no evidence (the empty tree's root), no skills", b, err)
	}},
	{"valid_full_disclosure", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, basePassport(), baseRecords(), allIndices(8))
		return passes("every evidence leaf disclosed", b, err)
	}},
	{"valid_no_disclosure", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, basePassport(), baseRecords(), nil)
		return passes("evidence committed to, none disclosed", b, err)
	}},
	{"valid_single_leaf", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, passportFor(baseEvidence()[:1]), baseRecords()[:1], []int{0})
		return passes("a tree of one leaf: the proof is empty", b, err)
	}},
	{"valid_odd_tree", func(f *fixture) (Case, error) {
		b, err := f.signed(f.es, passportFor(baseEvidence()[:7]), baseRecords()[:7], []int{6})
		return passes("last leaf of a tree of seven, carried up two levels", b, err)
	}},
	{"valid_near_limit", func(f *fixture) (Case, error) {
		// The most records that fit (a binary search on the count), then
		// the longest environment label on every record, then the longest
		// constraints label on the last one, that still fit.
		sign := func(n, env, last int) ([]byte, error) {
			recs := bigRecords(n)
			for i := range recs {
				if env > 0 {
					recs[i].Context.Environment = strings.Repeat("k", env)
				}
			}
			if last > 0 {
				recs[n-1].Context.Constraints = strings.Repeat("c", last)
			}
			return f.signed(f.ed, passportFor(recs), canonicalRecords(recs), allIndices(n))
		}
		fits := func(lo, hi int, try func(int) ([]byte, error)) (int, []byte, error) {
			var best []byte
			for hi-lo > 1 {
				m := (lo + hi) / 2
				b, err := try(m)
				switch {
				case err == nil:
					lo, best = m, b
				case passport.ReasonOf(err) == passport.ReasonBundleTooLarge:
					hi = m
				default:
					return 0, nil, err
				}
			}
			return lo, best, nil
		}
		n, _, err := fits(8, 2000, func(n int) ([]byte, error) { return sign(n, 0, 0) })
		if err != nil {
			return Case{}, err
		}
		env, _, err := fits(0, 201, func(env int) ([]byte, error) { return sign(n, env, 0) })
		if err != nil {
			return Case{}, err
		}
		_, b, err := fits(0, 201, func(last int) ([]byte, error) { return sign(n, env, last) })
		if err != nil || b == nil {
			return Case{}, fmt.Errorf("near limit: %v", err)
		}
		return passes(fmt.Sprintf("a bundle of %d bytes, just under the 512 KiB bound", len(b)), b, nil)
	}},
	{"valid_minor_versions", func(f *fixture) (Case, error) {
		p := basePassport()
		p.PassportVersion, p.TrustModelVersion = "0.9", "2.7"
		d := f.newClaimsDraft(p, baseRecords())
		d.version = "1.4"
		return passes("unknown minor versions of known major versions are accepted (passportVersion 0.9 carries the JWT claims of 0.2)", d.bytes(), nil)
	}},
	{"valid_without_trust_model", func(f *fixture) (Case, error) {
		p := basePassport()
		p.TrustModelVersion, p.SkillPassports = "", nil
		d := f.newDraft(nil, baseRecords())
		d.setBody(p, func(m map[string]any) { delete(m, "trustModelVersion"); delete(m, "skillPassports") })
		return passes("a passport 0.1 document from before trust model 2.0", d.bytes(), nil)
	}},
	{"valid_within_skew", func(f *fixture) (Case, error) {
		p := basePassport()
		p.IssuedAt = passport.NewTime(verifyAt.Add(4 * time.Minute))
		b, err := f.signed(f.ed, p, baseRecords(), []int{2})
		return passes("issued four minutes after the verification time, within the default five-minute skew", b, err)
	}},
	{"valid_expiring_at_verification", func(f *fixture) (Case, error) {
		p := basePassport()
		p.ExpiresAt = passport.NewTime(verifyAt)
		b, err := f.signed(f.ed, p, baseRecords(), []int{2})
		return passes("expiresAt equals the verification time", b, err)
	}},
	{"valid_unicode", func(f *fixture) (Case, error) {
		p := basePassport()
		p.Subject.Name = "Ärger-frei 🚀 \"quoted\"\n\u2028\t\u001f"
		p.DeclaredCapabilities = []string{"דּ", "😂", "€", "\u007f"}
		b, err := f.signed(f.ed, p, baseRecords(), []int{0})
		return passes("non-ASCII text, control characters and UTF-16 member order in canonical form", b, err)
	}},
	{"valid_older_key_in_window", func(f *fixture) (Case, error) {
		p := basePassport()
		p.IssuedAt = passport.NewTime(time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC))
		p.ExpiresAt = passport.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
		b, err := f.signed(f.edOld, p, baseRecords(), []int{3})
		return passes("signed by the retired key while it was valid; still valid afterwards", b, err)
	}},

	{"valid_trust_model_2_0", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, passportAs(baseEvidence(), "2.0"), baseRecords(), allIndices(8))
		return passes("a trust model 2.0 passport: skill passports without the 2.1 members; recomputed as 2.0", b, err)
	}},
	{"valid_recompute_later_evidence", func(f *fixture) (Case, error) {
		// One reporter's success and failure on two memories before the
		// assessment day; a publication after it derives from both.
		recs := []evidence.Record{
			{ID: "ev_s", Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess, Skill: "PostgreSQL", Quality: evidence.QualityObservedReuse,
				Reporter: "act_a", Operator: "op_a", Ownership: evidence.OwnershipDistinct, Lineage: &evidence.Lineage{Memory: "mem_1"},
				Context: evidence.Context{Domain: "d1"}, Date: evidence.MustDate("2026-02-01")},
			{ID: "ev_f", Type: evidence.TypeOutcome, Outcome: evidence.OutcomeFailure, Skill: "PostgreSQL", Quality: evidence.QualityObservedReuse,
				Reporter: "act_a", Operator: "op_a", Ownership: evidence.OwnershipDistinct, Lineage: &evidence.Lineage{Memory: "mem_2"},
				Context: evidence.Context{Domain: "d2"}, Date: evidence.MustDate("2026-02-15")},
			{ID: "ev_p", Type: evidence.TypePublication, Skill: "PostgreSQL", Quality: evidence.QualitySelfReported, Reporter: "act_s",
				Ownership: evidence.OwnershipSelf, Lineage: &evidence.Lineage{Memory: "mem_3", DerivedFrom: []string{"mem_1", "mem_2"}},
				Date: evidence.MustDate("2026-04-01")},
		}
		b, err := f.signed(f.ed, passportAssessedOn(recs, "2026-03-01", "PostgreSQL"), canonicalRecords(recs), allIndices(len(recs)))
		return passes("a skill passport assessed as of 2026-03-01 beside a publication of 2026-04-01 that derives from two earlier memories: "+
			"the later record joins no cluster, so the success and the failure hold two positions; recomputes to match", b, err)
	}},
	{"valid_recompute_cap_tolerance", func(f *fixture) (Case, error) {
		var recs []evidence.Record
		for i := range 20 {
			recs = append(recs, evidence.Record{ID: fmt.Sprintf("ev_u%02d", i+1), Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess,
				Skill: "PostgreSQL replication", Quality: evidence.QualityObservedReuse, Reporter: fmt.Sprintf("act_u%d", i+1),
				Ownership: evidence.OwnershipUnknown, Lineage: &evidence.Lineage{Memory: fmt.Sprintf("mem_u%d", i+1)},
				Date: evidence.MustDate("2026-05-01")})
		}
		b, err := f.signed(f.ed, passportAssessedOn(recs, "2026-05-01", "PostgreSQL indexing"), canonicalRecords(recs), allIndices(len(recs)))
		return passes("twenty unknown-ownership sibling reports of 0.05 each fill the unknown pool's cap of 1 within the 1e-9 tolerance: "+
			"no caps_applied, weights unscaled; recomputes to match", b, err)
	}},
	{"valid_skill_later_minor_member", func(f *fixture) (Case, error) {
		p := basePassport()
		d := f.newDraft(nil, baseRecords())
		d.setBody(p, func(m map[string]any) {
			m["trustModelVersion"] = "2.9"
			sp := skillOf(m, 0)
			sp["aLaterMember"] = map[string]any{"n": 1}
			rehashSkill(sp)
		})
		return passes("a skill passport of trust model 2.9 with a member unknown here, hashed with the rest", d.bytes(), nil)
	}},
	{"valid_header_not_canonical", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"typ":"passport+jws", "kid":"` + f.ed.Public().KeyID() + `","alg":"EdDSA"}`
		return passes("a protected header with its members out of order and a space: it need only be strict JSON", d.bytes(), nil)
	}},
	{"valid_key_window_start", func(f *fixture) (Case, error) {
		p := basePassport()
		p.IssuedAt = passport.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		p.ExpiresAt = passport.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
		b, err := f.signed(f.edOld, p, baseRecords(), []int{3})
		return passes("issued exactly at the retired key's notBefore: windows are inclusive", b, err)
	}},
	{"valid_key_window_end", func(f *fixture) (Case, error) {
		p := basePassport()
		p.IssuedAt = passport.NewTime(time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC))
		p.ExpiresAt = passport.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
		b, err := f.signed(f.edOld, p, baseRecords(), []int{3})
		return passes("issued exactly at the retired key's notAfter: windows are inclusive", b, err)
	}},
	{"valid_depth_32", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { m["x"] = nested(29) })
		return passes("a bundle nested exactly 32 deep (bundle 1, snapshot 2, passport 3, 29 arrays in an unknown member)", d.bytes(), nil)
	}},

	// Tampering.
	{"tampered_payload_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		good := d.compact()
		p := basePassport()
		p.ReputationScore = 99
		d.setPassport(p)
		payload := strings.Split(d.compact(), ".")[1]
		parts := strings.Split(good, ".")
		cred := `"` + parts[0] + "." + payload + "." + parts[2] + `"`
		d.credential = []byte(cred)
		return fails("payload and snapshot both changed after signing", "signature", passport.ReasonSignatureInvalid, d.bytes())
	}},
	{"tampered_snapshot_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte {
			i := bytes.LastIndex(b, []byte(`"reputationScore":6.75`))
			return append(append(b[:i:i], `"reputationScore":9.75`...), b[i+len(`"reputationScore":6.75`):]...)
		}
		return fails("snapshot edited, signed payload intact", "snapshot", passport.ReasonSnapshotMismatch, d.bytes())
	}},
	{"snapshot_other_passport_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.Subject.ID = "agt_someoneElse"
		other := f.newDraft(p, baseRecords())
		d := f.newDraft(nil, baseRecords())
		d.snapshot = other.signedSnapshot()
		return fails("the snapshot is another validly hashed passport", "snapshot", passport.ReasonSnapshotMismatch, d.bytes())
	}},
	{"tampered_leaf_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) {
			es[1].leaf = replaceOnce(es[1].leaf, `"outcome":"partial"`, `"outcome":"success"`)
		}
		return fails("a disclosed leaf edited: its proof no longer leads to the root", "evidence", passport.ReasonEvidenceProof, d.bytes())
	}},
	{"tampered_leaf_full_disclosure_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.disclose = allIndices(8)
		d.tamper = func(es []disclosure) {
			es[2].leaf = replaceOnce(es[2].leaf, `"outcome":"failure"`, `"outcome":"success"`)
		}
		return fails("a failure rewritten as a success with every leaf disclosed", "evidence", passport.ReasonEvidenceRoot, d.bytes())
	}},
	{"wrong_passport_hash_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.hash = strings.Repeat("0", 64)
		return fails("the issuer signed a wrong passportHash", "passport_hash", passport.ReasonHashMismatch, d.bytes())
	}},
	{"wrong_evidence_root_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.disclose = allIndices(8)
		p := basePassport()
		d.setBody(p, func(m map[string]any) { m["evidenceRoot"] = strings.Repeat("ab", 32) })
		return fails("the signed evidenceRoot is not the root of the disclosed leaves", "evidence", passport.ReasonEvidenceRoot, d.bytes())
	}},
	{"wrong_empty_root_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, nil)
		d.disclose = nil
		d.setBody(basePassport(), func(m map[string]any) { m["evidenceRoot"] = strings.Repeat("ab", 32) })
		return fails("no evidence, but evidenceRoot is not the empty tree's root", "evidence", passport.ReasonEvidenceRoot, d.bytes())
	}},
	{"broken_inclusion_proof_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].proof[1][0] ^= 0x01 }
		return fails("one bit of a proof hash flipped", "evidence", passport.ReasonEvidenceProof, d.bytes())
	}},
	{"short_inclusion_proof_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].proof = es[0].proof[:2] }
		return fails("a proof missing its last hash", "evidence", passport.ReasonEvidenceProof, d.bytes())
	}},
	{"proof_for_other_index_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].index = 0 }
		return fails("a leaf presented at another index", "evidence", passport.ReasonEvidenceProof, d.bytes())
	}},
	{"evidence_index_out_of_range_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[2].index = 8 }
		return fails("a disclosed index beyond evidenceCount", "evidence", passport.ReasonEvidence, d.bytes())
	}},
	{"evidence_indices_not_increasing_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0], es[1] = es[1], es[0] }
		return fails("disclosures out of index order", "evidence", passport.ReasonEvidence, d.bytes())
	}},
	{"leaf_noncanonical_number_fail", func(f *fixture) (Case, error) {
		recs := baseRecords()
		recs[4] = json.RawMessage(`{"id":"ev_05","weight":1.50}`)
		d := f.newDraft(nil, recs)
		return fails("the issuer committed to a leaf whose number is not in canonical form", "evidence", passport.ReasonJSONNotCanonical, d.bytes())
	}},

	// Algorithms and keys.
	{"alg_none_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.alg = "none"
		empty := ""
		d.sigB64 = &empty
		return fails(`"alg":"none" with an empty signature`, "algorithm", passport.ReasonAlgNotAllowed, d.bytes())
	}},
	{"hs256_public_key_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.alg = "HS256"
		pub, _ := f.ed.Public().MarshalJSON()
		d.sign = func(input []byte) []byte { return hmacSHA256(pub, input) }
		return fails("HS256 keyed with the public key's JWK (key confusion)", "algorithm", passport.ReasonAlgNotAllowed, d.bytes())
	}},
	{"hs256_raw_public_key_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.alg = "HS256"
		d.sign = func(input []byte) []byte {
			return hmacSHA256(f.raw[f.ed].(ed25519.PrivateKey).Public().(ed25519.PublicKey), input)
		}
		return fails("HS256 keyed with the raw Ed25519 public key bytes", "algorithm", passport.ReasonAlgNotAllowed, d.bytes())
	}},
	{"alg_key_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.alg = "ES256"
		return fails("header says ES256, kid names the EdDSA key", "algorithm", passport.ReasonAlgKeyMismatch, d.bytes())
	}},
	{"rs256_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.alg = "RS256"
		return fails("an algorithm outside the allow-list", "algorithm", passport.ReasonAlgNotAllowed, d.bytes())
	}},
	{"unknown_kid_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.key = f.rogue
		return fails("signed by a key the trust file does not hold", "key", passport.ReasonKeyUnknown, d.bytes())
	}},
	{"kid_not_thumbprint_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","kid":"issuer-key-1","typ":"passport+jws"}`
		return fails("kid is a name, not the key's thumbprint", "key", passport.ReasonKeyUnknown, d.bytes())
	}},
	{"signature_by_other_key_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.sign = func(input []byte) []byte { return f.rawSign(f.rogue, input) }
		return fails("kid of a trusted key, signature by another", "signature", passport.ReasonSignatureInvalid, d.bytes())
	}},
	{"ed25519_s_not_canonical_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.sign = func(input []byte) []byte {
			// S + L, the group order: the same point equation, but S
			// is not the canonical scalar (SPEC.md §8), which a
			// verifier must refuse, or signatures become malleable.
			sig := f.rawSign(f.ed, input)
			s := new(big.Int).SetBytes(reverse(sig[32:]))
			s.Add(s, ed25519Order)
			le := reverse(s.FillBytes(make([]byte, 32)))
			return append(sig[:32:32], le...)
		}
		return fails("an Ed25519 signature whose S is S + L, not below the group order", "signature", passport.ReasonSignatureInvalid, d.bytes())
	}},
	{"es256_der_signature_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.key = f.es
		d.sign = func(input []byte) []byte {
			rs := f.rawSign(f.es, input)
			der, _ := asn1Marshal(rs)
			return der
		}
		return fails("ES256 signature in DER instead of R‖S", "signature", passport.ReasonSignatureInvalid, d.bytes())
	}},
	{"key_outside_window_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.key = f.edOld
		return fails("signed in 2026 by a key valid only during 2025", "key_window", passport.ReasonKeyWindow, d.bytes())
	}},

	// The protected header.
	{"kid_unprotected_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		parts := strings.Split(d.compact(), ".")
		d.credential = []byte(`{"header":{"kid":"` + f.ed.Public().KeyID() + `"},"payload":"` + parts[1] + `","protected":"` + parts[0] + `","signature":"` + parts[2] + `"}`)
		return fails("kid in an unprotected header (flattened JSON serialization)", "bundle", passport.ReasonJWSUnprotected, d.bytes())
	}},
	{"two_signatures_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		a := strings.Split(d.compact(), ".")
		d.key = f.es
		b := strings.Split(d.compact(), ".")
		d.credential = []byte(`{"payload":"` + a[1] + `","signatures":[{"protected":"` + a[0] + `","signature":"` + a[2] + `"},{"protected":"` + b[0] + `","signature":"` + b[2] + `"}]}`)
		return fails("two signatures (general JSON serialization)", "bundle", passport.ReasonJWSMultipleSigs, d.bytes())
	}},
	{"flattened_serialization_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		p := strings.Split(d.compact(), ".")
		d.credential = []byte(`{"payload":"` + p[1] + `","protected":"` + p[0] + `","signature":"` + p[2] + `"}`)
		return fails("a valid JWS, but not in compact serialization", "bundle", passport.ReasonJWSNotCompact, d.bytes())
	}},
	{"embedded_jwk_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.key = f.rogue
		jwk, _ := f.rogue.Public().MarshalJSON()
		d.header = `{"alg":"EdDSA","jwk":` + string(jwk) + `,"kid":"` + f.ed.Public().KeyID() + `","typ":"passport+jws"}`
		return fails("the header embeds the signer's own key", "header", passport.ReasonJWSEmbeddedKey, d.bytes())
	}},
	{"jku_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","jku":"https://attacker.example/keys","kid":"` + f.ed.Public().KeyID() + `","typ":"passport+jws"}`
		return fails("the header points to a key set by URL", "header", passport.ReasonJWSKeyURL, d.bytes())
	}},
	{"x5c_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","kid":"` + f.ed.Public().KeyID() + `","typ":"passport+jws","x5c":["MIIB"]}`
		return fails("the header embeds a certificate chain", "header", passport.ReasonJWSEmbeddedKey, d.bytes())
	}},
	{"unknown_crit_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","crit":["exp"],"exp":1,"kid":"` + f.ed.Public().KeyID() + `","typ":"passport+jws"}`
		return fails("a critical extension the verifier does not know", "header", passport.ReasonJWSCrit, d.bytes())
	}},
	{"unknown_header_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","b64":false,"kid":"` + f.ed.Public().KeyID() + `","typ":"passport+jws"}`
		return fails("a header parameter outside the profile", "header", passport.ReasonJWSHeader, d.bytes())
	}},
	{"missing_typ_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","kid":"` + f.ed.Public().KeyID() + `"}`
		return fails("no typ header", "header", passport.ReasonJWSType, d.bytes())
	}},
	{"wrong_typ_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","kid":"` + f.ed.Public().KeyID() + `","typ":"JWT"}`
		return fails("typ of another token type", "header", passport.ReasonJWSType, d.bytes())
	}},
	{"duplicate_header_member_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.header = `{"alg":"EdDSA","alg":"none","kid":"` + f.ed.Public().KeyID() + `","typ":"passport+jws"}`
		return fails("alg named twice in the protected header", "header", passport.ReasonJWSHeader, d.bytes())
	}},
	{"jws_two_parts_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		p := strings.Split(d.compact(), ".")
		d.credential = []byte(`"` + p[0] + "." + p[1] + `"`)
		return fails("a compact JWS without its signature part", "jws", passport.ReasonJWSMalformed, d.bytes())
	}},
	{"signature_not_base64url_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		bad := "abc+/def=="
		d.sigB64 = &bad
		return fails("signature in standard base64 with padding", "jws", passport.ReasonJWSMalformed, d.bytes())
	}},

	// The signed payload.
	{"payload_whitespace_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.payload = []byte(`{"passport": ` + string(d.body) + `, "passportHash": "` + passport.PassportHash(d.body) + `"}`)
		return fails("signed payload with insignificant whitespace", "payload", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"payload_key_order_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.payload = []byte(`{"passportHash":"` + passport.PassportHash(d.body) + `","passport":` + string(d.body) + `}`)
		return fails("signed payload with members out of order", "payload", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"payload_number_form_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		body := replaceOnce(d.body, `"reputationScore":6.75`, `"reputationScore":6.750`)
		d.payload = []byte(`{"passport":` + string(body) + `,"passportHash":"` + passport.PassportHash(body) + `"}`)
		return fails("signed payload with a number not in shortest form", "payload", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"payload_exponent_form_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		body := replaceOnce(d.body, `"memoriesConsumed":52`, `"memoriesConsumed":5.2e1`)
		d.payload = []byte(`{"passport":` + string(body) + `,"passportHash":"` + passport.PassportHash(body) + `"}`)
		return fails("signed payload with an integer in exponent form", "payload", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"payload_escape_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		body := replaceOnce(d.body, `"name":"index-tuner"`, `"name":"\u0069ndex-tuner"`)
		d.payload = []byte(`{"passport":` + string(body) + `,"passportHash":"` + passport.PassportHash(body) + `"}`)
		return fails("signed payload with an unneeded \\u escape", "payload", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"payload_duplicate_key_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		body := replaceOnce(d.body, `"trustLevel":"observed"`, `"trustLevel":"high_trust","trustLevel":"observed"`)
		d.payload = []byte(`{"passport":` + string(body) + `,"passportHash":"` + passport.PassportHash(body) + `"}`)
		return fails("signed payload naming trustLevel twice", "payload", passport.ReasonJSONDuplicateKey, d.bytes())
	}},
	{"payload_extra_member_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.payload = []byte(`{"note":"signed, but not part of the format","passport":` + string(d.body) + `,"passportHash":"` + passport.PassportHash(d.body) + `"}`)
		d.snapshot = d.payload
		return fails("the payload holds a member besides passport and passportHash", "passport_hash", passport.ReasonPayloadMalformed, d.bytes())
	}},

	// The bundle's JSON.
	{"bundle_whitespace_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte { return replaceOnce(b, `{"bundleVersion":`, `{ "bundleVersion":`) }
		return fails("a bundle that is not canonical JSON", "json", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"bundle_pretty_printed_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte {
			var out bytes.Buffer
			json.Indent(&out, b, "", "  ")
			return out.Bytes()
		}
		return fails("an indented bundle", "json", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"bundle_key_order_fail", func(f *fixture) (Case, error) {
		b := f.newDraft(nil, baseRecords()).bytes()
		const first = `{"bundleVersion":"1.0",`
		moved := `{` + string(b[len(first):len(b)-1]) + `,"bundleVersion":"1.0"}`
		return fails("bundle members out of order", "json", passport.ReasonJSONNotCanonical, []byte(moved))
	}},
	{"duplicate_key_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte {
			return replaceOnce(b, `{"bundleVersion":"1.0",`, `{"bundleVersion":"1.0","bundleVersion":"1.0",`)
		}
		return fails("bundleVersion named twice", "json", passport.ReasonJSONDuplicateKey, d.bytes())
	}},
	{"invalid_utf8_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].leaf = replaceOnce(es[0].leaf, `"act_2"`, "\"act_\xff\"") }
		return fails("a byte that is not UTF-8 inside a string", "json", passport.ReasonJSONInvalidUTF8, d.bytes())
	}},
	{"overlong_utf8_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].leaf = replaceOnce(es[0].leaf, `"act_2"`, "\"act\xc0\xad2\"") }
		return fails("an overlong UTF-8 encoding", "json", passport.ReasonJSONInvalidUTF8, d.bytes())
	}},
	{"lone_surrogate_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].leaf = replaceOnce(es[0].leaf, `"act_2"`, `"act_\ud800"`) }
		return fails("a lone high surrogate escape", "json", passport.ReasonJSONLoneSurrogate, d.bytes())
	}},
	{"integer_beyond_2_53_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].index = 9007199254740993 }
		return fails("an integer beyond 2^53−1", "json", passport.ReasonJSONNumberRange, d.bytes())
	}},
	{"deep_nesting_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		deep := `{"id":"ev_x","x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`
		d.tamper = func(es []disclosure) { es[0].leaf = []byte(deep) }
		return fails("arrays nested 40 deep inside a leaf", "json", passport.ReasonJSONTooDeep, d.bytes())
	}},
	{"trailing_data_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte { return append(b, `{}`...) }
		return fails("a second JSON value after the bundle", "json", passport.ReasonJSONTrailingData, d.bytes())
	}},
	{"truncated_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte { return b[:len(b)/2] }
		return fails("a bundle cut in half", "json", passport.ReasonJSONMalformed, d.bytes())
	}},
	{"over_512kib_fail", func(f *fixture) (Case, error) {
		recs := canonicalRecords(bigRecords(1000))
		d := f.newDraft(nil, recs)
		d.disclose = allIndices(len(recs))
		b := d.bytes()
		if len(b) <= passport.MaxBundleSize {
			return Case{}, fmt.Errorf("over_512kib: only %d bytes", len(b))
		}
		return fails(fmt.Sprintf("a valid bundle of %d bytes, over the 512 KiB bound", len(b)), "size", passport.ReasonBundleTooLarge, b)
	}},

	// The bundle's members.
	{"unknown_bundle_member_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte { return replaceOnce(b, `],"snapshot":`, `],"key":{},"snapshot":`) }
		return fails("a bundle member outside the format", "bundle", passport.ReasonBundleMalformed, d.bytes())
	}},
	{"missing_snapshot_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte { i := bytes.Index(b, []byte(`,"snapshot":`)); return append(b[:i:i], '}') }
		return fails("no snapshot", "bundle", passport.ReasonBundleMalformed, d.bytes())
	}},
	{"unknown_bundle_version_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.version = "2.0"
		return fails("bundle format major version 2", "bundle", passport.ReasonBundleVersion, d.bytes())
	}},
	{"credential_not_string_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.credential = []byte(`["not","a","jws"]`)
		return fails("the credential is an array", "bundle", passport.ReasonJWSMalformed, d.bytes())
	}},

	// The passport's fields and versions.
	{"unknown_major_version_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.PassportVersion = "1.0"
		d := f.newDraft(p, baseRecords())
		return fails("passportVersion 1.0", "version", passport.ReasonVersion, d.bytes())
	}},
	{"unknown_trust_model_major_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.TrustModelVersion = "3.0"
		d := f.newDraft(p, baseRecords())
		return fails("trustModelVersion 3.0", "version", passport.ReasonVersion, d.bytes())
	}},
	{"malformed_version_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.PassportVersion = "v0.1"
		d := f.newDraft(p, baseRecords())
		return fails("passportVersion that is not MAJOR.MINOR", "version", passport.ReasonVersion, d.bytes())
	}},
	{"missing_passport_version_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { delete(m, "passportVersion") })
		return fails("no passportVersion", "version", passport.ReasonFieldMissing, d.bytes())
	}},
	{"missing_subject_id_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { delete(m["subject"].(map[string]any), "id") })
		return fails("no subject.id", "fields", passport.ReasonFieldMissing, d.bytes())
	}},
	{"missing_expiry_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { delete(m, "expiresAt") })
		return fails("no expiresAt", "fields", passport.ReasonFieldMissing, d.bytes())
	}},
	{"missing_evidence_root_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { delete(m, "evidenceRoot") })
		return fails("no evidenceRoot", "fields", passport.ReasonFieldMissing, d.bytes())
	}},
	{"time_with_offset_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { m["issuedAt"] = "2026-05-01T02:00:00+02:00" })
		return fails("issuedAt with a zone offset instead of Z", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"expiry_before_issuance_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.ExpiresAt = passport.NewTime(issuedAt.Add(-time.Hour))
		d := f.newDraft(p, baseRecords())
		return fails("expiresAt before issuedAt", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"too_many_skills_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.SkillPassports = nil
		for i := range passport.MaxSkillPassports + 1 {
			p.SkillPassports = append(p.SkillPassports, passport.SkillPassport{Skill: fmt.Sprintf("skill %d", i), State: "new"})
		}
		d := f.newDraft(p, baseRecords())
		return fails("51 skill passports", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"issuer_mismatch_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.Issuer = "https://other-issuer.example"
		d := f.newDraft(p, baseRecords())
		return fails("signed by the trusted key but naming another issuer", "issuer", passport.ReasonIssuerMismatch, d.bytes())
	}},

	{"skill_assessment_hash_wrong_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { skillOf(m, 0)["assessmentHash"] = strings.Repeat("ab", 32) })
		return fails("a skill passport whose assessmentHash is not the hash of its members", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"skill_assessment_hash_missing_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { delete(skillOf(m, 0), "assessmentHash") })
		return fails("a skill passport without assessmentHash", "fields", passport.ReasonFieldMissing, d.bytes())
	}},
	{"skill_effective_zeros_omitted_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) {
			sp := skillOf(m, 1)
			eff := sp["effective"].(map[string]any)
			for k, v := range eff {
				if v == 0.0 {
					delete(eff, k)
				}
			}
			rehashSkill(sp)
		})
		return fails("effective without its zero members, hashed over the members given: §4.1 writes every member of effective", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"skill_zero_member_written_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) {
			sp := skillOf(m, 1)
			sp["corrections"] = 0
			rehashSkill(sp)
		})
		return fails("a zero-valued optional member written, hashed over the members given: §4.1 omits it", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"time_leap_second_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { m["issuedAt"] = "2016-12-31T23:59:60Z" })
		return fails("issuedAt on a leap second: a time names a real instant, seconds 00 to 59", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"time_impossible_date_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { m["issuedAt"] = "2026-02-30T00:00:00Z" })
		return fails("issuedAt on 30 February", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"time_with_fraction_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { m["issuedAt"] = "2026-05-01T00:00:00.5Z" })
		return fails("issuedAt with a fraction of a second", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"key_window_after_end_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.IssuedAt = passport.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		p.ExpiresAt = passport.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
		d := f.newDraft(p, baseRecords())
		d.key = f.edOld
		return fails("issued one second after the retired key's notAfter", "key_window", passport.ReasonKeyWindow, d.bytes())
	}},
	{"bundle_trailing_newline_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte { return append(b, '\n') }
		return fails("a bundle ending in a newline: whitespace after the value is trailing data", "json", passport.ReasonJSONTrailingData, d.bytes())
	}},
	{"payload_trailing_newline_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.payload = append(d.signedSnapshot(), '\n')
		return fails("a signed payload ending in a newline", "payload", passport.ReasonJSONTrailingData, d.bytes())
	}},
	{"payload_depth_32_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) { m["x"] = nested(30) })
		return fails("a payload nested 32 deep is legal alone, but bundled it is 33 deep", "json", passport.ReasonJSONTooDeep, d.bytes())
	}},
	{"leaf_number_out_of_range_fail", func(f *fixture) (Case, error) {
		recs := baseRecords()
		recs[4] = json.RawMessage(`{"id":"ev_05","weight":1e400}`)
		p := basePassport()
		p.ExpiresAt = passport.NewTime(verifyAt.Add(-6 * time.Minute))
		d := f.newDraft(p, recs)
		return fails("a committed leaf holds 1e400 and the passport has expired: the range is a guard of the json step", "json", passport.ReasonJSONNumberRange, d.bytes())
	}},
	{"leaf_number_underflow_fail", func(f *fixture) (Case, error) {
		recs := baseRecords()
		recs[4] = json.RawMessage(`{"id":"ev_05","weight":1e-400}`)
		d := f.newDraft(nil, recs)
		return fails("a committed leaf holds 1e-400: in range (it reads as 0), but its canonical form is 0", "evidence", passport.ReasonJSONNotCanonical, d.bytes())
	}},
	{"proof_too_long_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) {
			for len(es[0].proof) <= evidence.MaxProofLen {
				es[0].proof = append(es[0].proof, es[0].proof[0])
			}
		}
		return fails("a proof of 64 hashes: beyond the format's bound, malformed", "evidence", passport.ReasonEvidence, d.bytes())
	}},
	{"precedence_entry_shape_over_proof_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) {
			es[0].proof[1][0] ^= 0x01
			for len(es[2].proof) <= evidence.MaxProofLen {
				es[2].proof = append(es[2].proof, es[2].proof[0])
			}
		}
		return fails("entry 0's proof does not verify and entry 2's proof is too long: every entry's shape is checked before any proof", "evidence", passport.ReasonEvidence, d.bytes())
	}},
	{"proof_hash_upper_case_full_disclosure_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.disclose = allIndices(8)
		d.edit = upperProofHash(d, 3)
		return fails("every leaf disclosed and every proof its audit path, but one proof hash written in upper case: malformed, not a match", "evidence", passport.ReasonEvidence, d.bytes())
	}},
	{"precedence_proof_form_over_root_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.disclose = allIndices(8)
		d.tamper = func(es []disclosure) {
			es[2].leaf = replaceOnce(es[2].leaf, `"outcome":"failure"`, `"outcome":"success"`)
		}
		d.edit = upperProofHash(d, 5)
		return fails("every leaf disclosed, one edited so that the tree's head is not evidenceRoot, and a later entry's proof hash in upper case: every proof hash's form is checked before the root", "evidence", passport.ReasonEvidence, d.bytes())
	}},
	{"precedence_fields_over_validity_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.ExpiresAt = passport.NewTime(verifyAt.Add(-6 * time.Minute))
		d := f.newDraft(nil, baseRecords())
		d.setBody(p, func(m map[string]any) { skillOf(m, 0)["assessmentHash"] = strings.Repeat("ab", 32) })
		return fails("expired, and a skill passport's hash is wrong: the earlier check, fields, gives the reason", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
	{"precedence_duplicate_over_order_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) {
			es[0].leaf = append(es[0].leaf[:len(es[0].leaf)-1:len(es[0].leaf)-1], `,"id":"ev_zz"}`...)
		}
		return fails("a leaf repeats \"id\" after \"type\": the name is both repeated and out of order, and the earlier guard of §2, duplicate, wins", "json", passport.ReasonJSONDuplicateKey, d.bytes())
	}},
	{"precedence_json_first_offset_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.tamper = func(es []disclosure) { es[0].leaf = replaceOnce(es[0].leaf, `"act_2"`, `"act_\ud800"`) }
		d.edit = func(b []byte) []byte {
			return replaceOnce(b, `"trustLevel":"observed"`, `"trustLevel":"observed","trustLevel":"observed"`)
		}
		return fails("a lone surrogate in a leaf before a duplicate key in the snapshot: the first fault in byte order wins", "json", passport.ReasonJSONLoneSurrogate, d.bytes())
	}},

	// Time.
	{"expired_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.ExpiresAt = passport.NewTime(verifyAt.Add(-6 * time.Minute))
		d := f.newDraft(p, baseRecords())
		return fails("expired six minutes before the verification time, beyond the skew", "validity", passport.ReasonExpired, d.bytes())
	}},
	{"not_yet_valid_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.IssuedAt = passport.NewTime(verifyAt.Add(6 * time.Minute))
		d := f.newDraft(p, baseRecords())
		return fails("issued six minutes after the verification time, beyond the skew", "validity", passport.ReasonNotYetValid, d.bytes())
	}},
}

// asn1Marshal encodes a 64-byte R‖S signature as ASN.1 DER.
func asn1Marshal(rs []byte) ([]byte, error) {
	return asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(rs[:32]), new(big.Int).SetBytes(rs[32:])})
}

// ed25519Order is L, the order of the Ed25519 base point (RFC 8032 §5.1).
var ed25519Order, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// reverse returns b's bytes in the other order: Ed25519 writes scalars
// little-endian, big.Int reads them big-endian.
func reverse(b []byte) []byte {
	r := make([]byte, len(b))
	for i, c := range b {
		r[len(b)-1-i] = c
	}
	return r
}

// upperProofHash returns an edit that writes, in the bundle d assembles,
// the first proof hash of the entry of index k that holds a letter in
// upper case.
func upperProofHash(d *draft, k int) func([]byte) []byte {
	return func(b []byte) []byte {
		s := string(b)
		at := strings.Index(s, fmt.Sprintf(`{"index":%d,`, k))
		at += strings.Index(s[at:], `"proof":[`)
		for _, h := range d.disclosures()[k].proof {
			if text := h.String(); strings.ContainsAny(text, "abcdef") {
				return []byte(s[:at] + strings.Replace(s[at:], `"`+text+`"`, `"`+strings.ToUpper(text)+`"`, 1))
			}
		}
		panic("vectors: no proof hash with a letter")
	}
}
