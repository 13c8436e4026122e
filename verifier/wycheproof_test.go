package verifier

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
	"github.com/remnant/passportkit/passport"
)

// TestWycheproofJWS runs the Wycheproof JSON Web Signature cases through
// the verifier's JWS checks (everything but the typ requirement, which
// Wycheproof's tokens do not carry, and the kid match: each group's key is
// the one trusted key, whatever its kid).
//
// Deliberate differences, each asserted below rather than skipped:
//   - passportkit accepts only EdDSA and ES256. Valid HS256, RS*, PS* and
//     ES512 tokens are refused with alg_not_allowed (or the key itself is
//     refused when its type is not supported).
//   - A token whose header and payload pass but whose key could not be
//     loaded (RSA, P-521, HMAC) is refused before any signature check.
func TestWycheproofJWS(t *testing.T) {
	b, err := os.ReadFile(extdata.Path(t, "wycheproof", "json_web_signature_test.json"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		TestGroups []struct {
			Comment string          `json:"comment"`
			Public  json.RawMessage `json:"public"`
			Tests   []struct {
				TCID    int             `json:"tcId"`
				Comment string          `json:"comment"`
				JWS     json.RawMessage `json:"jws"`
				Result  string          `json:"result"`
			} `json:"tests"`
		} `json:"testGroups"`
	}
	if err := json.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	var matched, refusedValid, total int
	for _, g := range wf.TestGroups {
		var key *passport.PublicKey
		if len(g.Public) > 0 && string(g.Public) != "null" {
			var m map[string]any
			json.Unmarshal(g.Public, &m)
			delete(m, "kid") // a test kid, not the thumbprint
			jwk, _ := json.Marshal(m)
			key, _ = passport.ParsePublicKey(jwk) // nil for unsupported key types and uses
		}
		for _, tc := range g.Tests {
			total++
			var compact string
			accepted := false
			reason := passport.Reason("")
			if err := json.Unmarshal(tc.JWS, &compact); err != nil {
				reason = passport.ReasonJWSNotCompact // JSON serialization
			} else if key == nil {
				reason = passport.ReasonKeyUnknown
			} else {
				r := &run{credential: []byte(compact), bufs: new(buffers), lookup: func(string) (*TrustedKey, bool) { return &TrustedKey{Key: key}, true }}
				_, _, err := r.compactJWS()
				accepted = err == nil
				reason = passport.ReasonOf(err)
			}
			switch {
			case accepted == (tc.Result == "valid"):
				matched++
			case tc.Result == "valid" && !accepted && g.Comment != "es256" && g.Comment != "SpecialCaseEs256":
				// Outside our allow-list: refused by design.
				refusedValid++
				if reason != passport.ReasonAlgNotAllowed && reason != passport.ReasonKeyUnknown && reason != passport.ReasonAlgKeyMismatch {
					t.Errorf("tc %d (%s %s): refused with %s, want an algorithm or key refusal", tc.TCID, g.Comment, tc.Comment, reason)
				}
			default:
				t.Errorf("tc %d (%s %s): accepted %v (%s), want %s", tc.TCID, g.Comment, tc.Comment, accepted, reason, tc.Result)
			}
		}
	}
	t.Logf("%d cases: %d verdicts match, %d valid tokens refused by the algorithm allow-list", total, matched, refusedValid)
	if total < 400 || matched < 300 {
		t.Errorf("only %d of %d verdicts match", matched, total)
	}
}
