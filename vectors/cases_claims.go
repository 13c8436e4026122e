package vectors

import (
	"slices"
	"strings"

	"github.com/remnant/passportkit/passport"
)

// statusURI is the status list the version 0.2 passports point at.
const statusURI = Issuer + "/status/7f3a"

// statusIdx is their index in it.
const statusIdx = 37

// holderKeys returns the thumbprints, in byte order, of the holder keys
// labelled "holder key 1" to "holder key n".
func holderKeys(n int) []string {
	var out []string
	for i := range n {
		k, err := passport.NewPrivateKey(passport.EdDSA, secret("holder key "+string(rune('1'+i))))
		if err != nil {
			panic(err)
		}
		out = append(out, k.Public().KeyID())
	}
	slices.Sort(out)
	return out
}

// claimsPassport is basePassport as version 0.2, with the cnf and status
// members when asked for.
func claimsPassport(cnf, status bool) *passport.Passport {
	p := basePassport()
	p.PassportVersion = passport.Version
	if cnf {
		p.Cnf = &passport.Confirmation{JKTs: holderKeys(2)}
	}
	if status {
		p.Status = &passport.StatusRef{StatusList: passport.StatusListRef{Idx: statusIdx, URI: statusURI}}
	}
	return p
}

// claimsFails returns a negative case of the claims check.
func claimsFails(desc string, reason passport.Reason, d *draft) (Case, error) {
	return fails(desc, "claims", reason, d.bytes())
}

// fieldFails returns a case refused by the fields check as
// passport_field_invalid.
func fieldFails(desc string, d *draft) (Case, error) {
	return fails(desc, "fields", passport.ReasonFieldInvalid, d.bytes())
}

// editedBinding is a version 0.2 draft with cnf and status whose passport
// body edit changes; the claims stay those of the unedited passport.
func (f *fixture) editedBinding(edit func(m map[string]any)) *draft {
	p := claimsPassport(true, true)
	d := f.newClaimsDraft(p, baseRecords())
	d.setBody(p, edit)
	return d
}

// statusListOf returns the status_list member of a passport decoded into
// a map.
func statusListOf(m map[string]any) map[string]any {
	return m["status"].(map[string]any)["status_list"].(map[string]any)
}

var claimsGenerators = []generator{
	// Valid passports of version 0.2.
	{"valid_v02", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, claimsPassport(false, false), baseRecords(), []int{1, 4, 6})
		return passes("passportVersion 0.2: the payload carries iss, sub, iat, nbf and exp", b, err)
	}},
	{"valid_v02_cnf", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, claimsPassport(true, false), baseRecords(), []int{1, 4, 6})
		return passes("passportVersion 0.2 naming two holder keys in cnf", b, err)
	}},
	{"valid_v02_status", func(f *fixture) (Case, error) {
		b, err := f.signed(f.ed, claimsPassport(false, true), baseRecords(), []int{1, 4, 6})
		return passes("passportVersion 0.2 with a status reference, mirrored in the payload; no list is supplied, so the status check is not_checked", b, err)
	}},
	{"valid_v02_cnf_status", func(f *fixture) (Case, error) {
		b, err := f.signed(f.es, claimsPassport(true, true), baseRecords(), []int{0, 7})
		return passes("ES256 passportVersion 0.2 with cnf and status", b, err)
	}},
	{"valid_v02_four_holder_keys", func(f *fixture) (Case, error) {
		p := claimsPassport(false, false)
		p.Cnf = &passport.Confirmation{JKTs: holderKeys(4)}
		b, err := f.signed(f.ed, p, baseRecords(), nil)
		return passes("cnf naming four holder keys, the most it may", b, err)
	}},
	{"valid_v02_loopback_status", func(f *fixture) (Case, error) {
		p := claimsPassport(false, true)
		p.Status.StatusList.URI = "http://127.0.0.1:8080/status/7f3a"
		p.Status.StatusList.Idx = 0
		b, err := f.signed(f.ed, p, baseRecords(), nil)
		return passes("a status list served over plain http on a loopback host, index 0", b, err)
	}},

	// The JWT claims.
	{"claims_on_v01_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.claims = claimsOf(basePassport())
		return claimsFails("a passportVersion 0.1 payload carrying JWT claims", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_missing_exp_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		delete(d.claims, "exp")
		return claimsFails("a 0.2 payload without exp", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_missing_iss_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		delete(d.claims, "iss")
		return claimsFails("a 0.2 payload without iss", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_missing_all_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(claimsPassport(false, false), baseRecords())
		return claimsFails("a 0.2 payload with only passport and passportHash", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_iss_not_string_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["iss"] = []any{Issuer}
		return claimsFails("iss is an array", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_exp_fraction_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["exp"] = d.claims["exp"].(float64) + 0.5
		return claimsFails("exp with a fraction of a second", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_exp_string_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["exp"] = passport.NewTime(expiresAt).String()
		return claimsFails("exp written as a time string", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_iss_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["iss"] = "https://other-issuer.example"
		return claimsFails("iss names another issuer than the passport", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_sub_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["sub"] = "agt_someoneElse"
		return claimsFails("sub names another agent than subject.id", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_iat_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["iat"] = d.claims["iat"].(float64) + 1
		return claimsFails("iat one second after issuedAt", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_nbf_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["nbf"] = d.claims["nbf"].(float64) - 60
		return claimsFails("nbf a minute before issuedAt", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_exp_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["exp"] = d.claims["exp"].(float64) + 86400
		return claimsFails("exp a day after expiresAt: a generic library would accept the passport a day too long", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_exp_milliseconds_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["exp"] = d.claims["exp"].(float64) * 1000
		return claimsFails("exp in milliseconds", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_status_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, true), baseRecords())
		d.claims["status"] = map[string]any{"status_list": map[string]any{"idx": statusIdx + 1, "uri": statusURI}}
		return claimsFails("the status claim names another index than the passport's status", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_status_missing_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, true), baseRecords())
		delete(d.claims, "status")
		return claimsFails("the passport has status, the payload no status claim", passport.ReasonClaimsMalformed, d)
	}},
	{"claims_status_unexpected_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["status"] = map[string]any{"status_list": map[string]any{"idx": statusIdx, "uri": statusURI}}
		return claimsFails("a status claim for a passport without status", passport.ReasonClaimsMismatch, d)
	}},
	{"claims_status_not_object_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, true), baseRecords())
		d.claims["status"] = "valid"
		return claimsFails("a status claim that is a string", passport.ReasonClaimsMalformed, d)
	}},
	{"payload_extra_claim_fail", func(f *fixture) (Case, error) {
		d := f.newClaimsDraft(claimsPassport(false, false), baseRecords())
		d.claims["aud"] = "https://relying-party.example"
		return fails("a 0.2 payload with an aud claim, which the format does not define", "passport_hash", passport.ReasonPayloadMalformed, d.bytes())
	}},

	// The cnf and status members.
	{"cnf_on_v01_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.Cnf = &passport.Confirmation{JKTs: holderKeys(1)}
		return fieldFails("a passportVersion 0.1 passport with cnf", f.newDraft(p, baseRecords()))
	}},
	{"status_on_v01_fail", func(f *fixture) (Case, error) {
		p := basePassport()
		p.Status = claimsPassport(false, true).Status
		return fieldFails("a passportVersion 0.1 passport with status", f.newDraft(p, baseRecords()))
	}},
	{"cnf_empty_fail", func(f *fixture) (Case, error) {
		return fieldFails("cnf naming no key", f.editedBinding(func(m map[string]any) { m["cnf"] = map[string]any{"jkts": []any{}} }))
	}},
	{"cnf_five_keys_fail", func(f *fixture) (Case, error) {
		keys := holderKeys(5)
		return fieldFails("cnf naming five keys", f.editedBinding(func(m map[string]any) { m["cnf"] = map[string]any{"jkts": keys} }))
	}},
	{"cnf_unsorted_fail", func(f *fixture) (Case, error) {
		keys := holderKeys(2)
		return fieldFails("cnf thumbprints out of byte order", f.editedBinding(func(m map[string]any) {
			m["cnf"] = map[string]any{"jkts": []string{keys[1], keys[0]}}
		}))
	}},
	{"cnf_repeated_key_fail", func(f *fixture) (Case, error) {
		keys := holderKeys(1)
		return fieldFails("cnf naming one key twice", f.editedBinding(func(m map[string]any) {
			m["cnf"] = map[string]any{"jkts": []string{keys[0], keys[0]}}
		}))
	}},
	{"cnf_padded_thumbprint_fail", func(f *fixture) (Case, error) {
		keys := holderKeys(1)
		return fieldFails("a cnf thumbprint with base64 padding", f.editedBinding(func(m map[string]any) {
			m["cnf"] = map[string]any{"jkts": []string{keys[0] + "="}}
		}))
	}},
	{"cnf_hex_thumbprint_fail", func(f *fixture) (Case, error) {
		return fieldFails("a cnf thumbprint in hex", f.editedBinding(func(m map[string]any) {
			m["cnf"] = map[string]any{"jkts": []string{strings.Repeat("ab", 32)}}
		}))
	}},
	{"cnf_jkt_member_fail", func(f *fixture) (Case, error) {
		keys := holderKeys(1)
		return fieldFails("cnf with RFC 7800's single jkt member beside jkts", f.editedBinding(func(m map[string]any) {
			m["cnf"] = map[string]any{"jkt": keys[0], "jkts": keys}
		}))
	}},
	{"cnf_not_object_fail", func(f *fixture) (Case, error) {
		return fieldFails("cnf as a bare array of thumbprints", f.editedBinding(func(m map[string]any) { m["cnf"] = holderKeys(1) }))
	}},
	{"status_negative_index_fail", func(f *fixture) (Case, error) {
		return fieldFails("status_list.idx below zero", f.editedBinding(func(m map[string]any) { statusListOf(m)["idx"] = -1 }))
	}},
	{"status_index_fraction_fail", func(f *fixture) (Case, error) {
		return fieldFails("status_list.idx with a fraction", f.editedBinding(func(m map[string]any) { statusListOf(m)["idx"] = 1.5 }))
	}},
	{"status_index_string_fail", func(f *fixture) (Case, error) {
		return fieldFails("status_list.idx as a string", f.editedBinding(func(m map[string]any) { statusListOf(m)["idx"] = "37" }))
	}},
	{"status_http_uri_fail", func(f *fixture) (Case, error) {
		return fieldFails("a status list over plain http on a public host", f.editedBinding(func(m map[string]any) {
			statusListOf(m)["uri"] = "http://issuer.example/status/7f3a"
		}))
	}},
	{"status_relative_uri_fail", func(f *fixture) (Case, error) {
		return fieldFails("a relative status list uri", f.editedBinding(func(m map[string]any) { statusListOf(m)["uri"] = "/status/7f3a" }))
	}},
	{"status_uri_fragment_fail", func(f *fixture) (Case, error) {
		return fieldFails("a status list uri with a fragment", f.editedBinding(func(m map[string]any) { statusListOf(m)["uri"] = statusURI + "#x" }))
	}},
	{"status_extra_mechanism_fail", func(f *fixture) (Case, error) {
		return fieldFails("status naming a second mechanism beside status_list", f.editedBinding(func(m map[string]any) {
			m["status"].(map[string]any)["other_list"] = map[string]any{"idx": 1}
		}))
	}},
	{"status_list_extra_member_fail", func(f *fixture) (Case, error) {
		return fieldFails("status_list with a member besides idx and uri", f.editedBinding(func(m map[string]any) { statusListOf(m)["bits"] = 2 }))
	}},
	{"status_missing_uri_fail", func(f *fixture) (Case, error) {
		return fieldFails("status_list without uri", f.editedBinding(func(m map[string]any) { delete(statusListOf(m), "uri") }))
	}},
}
