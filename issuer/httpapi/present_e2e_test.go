package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// presentEnv is the whole issuer on one store, served on loopback: holder
// keys, passports, status lists and the trust file, on the real clock.
type presentEnv struct {
	*env
	ring *keyring.Keyring
}

func newPresentEnv(t *testing.T, engine store.Engine) *presentEnv {
	t.Helper()
	ctx := context.Background()
	db := storetest.Open(t, engine, store.Options{})
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	app := service.New(db, service.Options{Issuer: ring.Issuer(), Cursors: storetest.Sealer(t, db)})
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	lists := service.NewStatusLists(db, ring, service.StatusListOptions{})
	e := serve(t, db, httpapi.New(app, storetest.Logger(t), httpapi.Config{
		RatePerSecond: 1e6, Burst: 1e6, Keys: ring, Passports: passports, StatusLists: lists,
	}))
	return &presentEnv{env: e, ring: ring}
}

// holder creates an agent that registers a new holder key of alg, proved
// over a nonce of the issuer, and returns the agent and the key.
func (pe *presentEnv) holder(name string, alg passport.Algorithm) (issuer.AgentID, *passport.PrivateKey) {
	pe.t.Helper()
	key, id := pe.agent(name)
	var nonce issuer.HolderKeyNonce
	must(pe.t, pe.do(key, "POST", "/api/agents/me/holder-keys/nonce", ""), 200).json(pe.t, &nonce)
	hk, err := passport.GenerateKey(alg, rand.Reader)
	if err != nil {
		pe.t.Fatal(err)
	}
	proof, err := passport.ProveHolderKey(hk, passport.HolderProof{Audience: pe.ring.Issuer(), Nonce: nonce.Nonce, Subject: string(id)})
	if err != nil {
		pe.t.Fatal(err)
	}
	jwk, err := json.Marshal(hk.Public())
	if err != nil {
		pe.t.Fatal(err)
	}
	body, _ := json.Marshal(issuer.HolderKeysRequest{Keys: []issuer.HolderKeyProof{{JWK: jwk, Proof: proof}}})
	must(pe.t, pe.do(key, "PUT", "/api/agents/me/holder-keys", string(body)), 200)
	return id, hk
}

// passportOf fetches id's bundle and reads its passport.
func (pe *presentEnv) passportOf(id issuer.AgentID) ([]byte, passport.Passport) {
	pe.t.Helper()
	bundle := must(pe.t, pe.do("", "GET", issuer.PassportPath(id), ""), 200).body
	_, p := bundlePassport(pe.t, bundle)
	return bundle, p
}

// trustFile fetches the trust file the issuer publishes now.
func (pe *presentEnv) trustFile() *verifier.Trust {
	pe.t.Helper()
	trust, err := verifier.ParseTrust(must(pe.t, pe.do("", "GET", "/.well-known/passport-trust.json", ""), 200).body)
	if err != nil {
		pe.t.Fatal(err)
	}
	return trust
}

// statusList fetches the token of the list p names, as served now.
func (pe *presentEnv) statusList(p passport.Passport) []byte {
	pe.t.Helper()
	if p.Status == nil {
		pe.t.Fatal("the passport names no status list")
	}
	u, err := url.Parse(p.Status.StatusList.URI)
	if err != nil {
		pe.t.Fatal(err)
	}
	return must(pe.t, pe.do("", "GET", u.Path, ""), 200).body
}

// relyingParty verifies presentations offline, as a third party would:
// with a trust file and a status list token it fetched, for one audience
// and the nonce it handed out.
func relyingParty(t *testing.T, trust *verifier.Trust, list []byte, subject issuer.AgentID, aud, nonce string, presentation []byte) *verifier.Result {
	t.Helper()
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	policy := verifier.ForSubject(string(subject)).WithStatusList(v.ReadStatusList(list))
	res, err := v.VerifyPresentation(context.Background(), presentation, policy, verifier.ForPresentation(aud, nonce))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// swapBundle returns presentation p with its bundle replaced by bundle:
// what a holder of one agent's key would send to pass as another.
func swapBundle(t *testing.T, p, bundle []byte) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(p, &doc); err != nil {
		t.Fatal(err)
	}
	doc["bundle"] = bundle
	out, err := passport.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPresentationEndToEnd walks the life of a presented passport on both
// engines, over HTTP: an agent registers a holder key and gets its passport,
// which names the key; it presents the passport to a relying party, which
// verifies offline with the issuer's trust file and a fresh status list.
// The same passport then fails, each with its own reason, presented with
// another agent's key, for another audience, with a replayed nonce, after
// its revocation, and after its signing key is withdrawn.
func TestPresentationEndToEnd(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			pe := newPresentEnv(t, engine)
			alice, aliceKey := pe.holder("Alice", passport.EdDSA)
			bob, bobKey := pe.holder("Bob", passport.ES256)

			bundle, p := pe.passportOf(alice)
			if p.Cnf == nil || !slices.Equal(p.Cnf.JKTs, []string{aliceKey.Public().KeyID()}) {
				t.Fatalf("the passport's cnf is %+v, want Alice's key %s", p.Cnf, aliceKey.Public().KeyID())
			}
			trust, list := pe.trustFile(), pe.statusList(p)
			const aud, nonce = "https://relying-party.example", "n-0001"
			present := func(bundle []byte, key *passport.PrivateKey, nonce string) []byte {
				t.Helper()
				out, err := passport.Present(bundle, key, aud, nonce, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			wantReason := func(what string, res *verifier.Result, reason passport.Reason) {
				t.Helper()
				if res.Verified != (reason == passport.ReasonOK) || res.Reason != reason {
					t.Errorf("%s: verified %v, reason %s; want %s", what, res.Verified, res.Reason, reason)
				}
			}

			good := present(bundle, aliceKey, nonce)
			res := relyingParty(t, trust, list, alice, aud, nonce, good)
			wantReason("Alice's own presentation", res, passport.ReasonOK)
			if c := res.Check(verifier.CheckStatus); !c.OK {
				t.Errorf("the status check of a fresh list: %+v", c)
			}

			// Bob holds a key the issuer bound to Bob, and Alice's public
			// bundle: his key is not in her passport's cnf.
			bobsBundle, _ := pe.passportOf(bob)
			forged := swapBundle(t, present(bobsBundle, bobKey, nonce), bundle)
			wantReason("Alice's bundle presented with Bob's key", relyingParty(t, trust, list, alice, aud, nonce, forged), passport.ReasonKBKeyNotBound)
			wantReason("another audience", relyingParty(t, trust, list, alice, "https://other.example", nonce, good), passport.ReasonKBAudienceMismatch)
			wantReason("a replayed nonce", relyingParty(t, trust, list, alice, aud, "n-0002", good), passport.ReasonKBNonceMismatch)

			// Revoked: the list served a moment later says so.
			hash := passportHash(t, bundle)
			change, err := issuer.NewStatusChange(hash, issuer.PassportRevoked, "the holder key was lost")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := storetest.Admin(pe.db).SetPassportStatus(context.Background(), change); err != nil {
				t.Fatal(err)
			}
			time.Sleep(service.StatusListDebounce + 100*time.Millisecond)
			wantReason("after revocation", relyingParty(t, trust, pe.statusList(p), alice, aud, nonce, good), passport.ReasonRevoked)

			// Withdrawn: a rotation, then the old key withdrawn. A relying
			// party with the trust file of before the withdrawal and a fresh
			// list sees the passport revoked; one that fetches the trust
			// file again no longer knows its key.
			bundle2, p2 := pe.passportOf(alice)
			if passportHash(t, bundle2) == hash {
				t.Fatal("a revoked passport was served again")
			}
			old := signingKID(t, bundle2)
			if _, err := pe.ring.Rotate(context.Background(), "", passport.EdDSA); err != nil {
				t.Fatal(err)
			}
			before := pe.trustFile()
			if _, err := pe.ring.Retire(context.Background(), old, true); err != nil {
				t.Fatal(err)
			}
			time.Sleep(service.StatusListDebounce + 100*time.Millisecond)
			second := present(bundle2, aliceKey, nonce)
			wantReason("after withdrawal, with the earlier trust file", relyingParty(t, before, pe.statusList(p2), alice, aud, nonce, second), passport.ReasonRevoked)
			wantReason("after withdrawal, with the trust file fetched again", relyingParty(t, pe.trustFile(), pe.statusList(p2), alice, aud, nonce, second), passport.ReasonKeyUnknown)

			// The passport served now is signed by the new key, still
			// names Alice's holder key, and verifies.
			bundle3, p3 := pe.passportOf(alice)
			if signingKID(t, bundle3) == old {
				t.Fatal("a passport signed by the withdrawn key was served")
			}
			wantReason("the next passport", relyingParty(t, pe.trustFile(), pe.statusList(p3), alice, aud, nonce, present(bundle3, aliceKey, nonce)), passport.ReasonOK)
		})
	}
}

// passportHash reads a bundle's passportHash.
func passportHash(t testing.TB, bundle []byte) string {
	t.Helper()
	b, err := passport.ParseBundleUnverified(bundle)
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := b.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	return snap.PassportHash
}

// signingKID reads the kid of a bundle's credential.
func signingKID(t testing.TB, bundle []byte) string {
	t.Helper()
	b, err := passport.ParseBundleUnverified(bundle)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(b.Credential, ".")
	h, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	var hd struct {
		KID string `json:"kid"`
	}
	if err := json.Unmarshal(h, &hd); err != nil {
		t.Fatal(err)
	}
	return hd.KID
}
