package httpapi_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// keyOpsFor is how long TestKeyOperationsUnderIssuance runs on each engine.
var keyOpsFor = flag.Duration("keyops", 0, "how long TestKeyOperationsUnderIssuance runs on each engine (default 3s, 1s with -short)")

// served is one passport as the passport route served it.
type served struct {
	bundle []byte
	hash   string
	kid    string
	status *passport.StatusRef
	asked  time.Time // when the request was sent
}

// TestKeyOperationsUnderIssuance is a property test on both engines: while
// four clients fetch passports of six agents over HTTP, one operator
// rotates keys, retires and withdraws them (the active one too), and
// revokes passports it saw served, in a random order. Afterwards:
//
//   - no passport was signed outside its key's window, by the issuer's own
//     record of every key;
//   - no passport signed by a withdrawn key was served to a request sent
//     after its withdrawal returned;
//   - with the issuer's full record of keys and the status lists served at
//     the end, every served passport verifies, or is reported revoked
//     exactly when it was revoked or its key withdrawn;
//   - with the trust file published at the end, a passport of a withdrawn
//     key is refused as key_unknown.
func TestKeyOperationsUnderIssuance(t *testing.T) {
	d := *keyOpsFor
	if d == 0 {
		d = 3 * time.Second
		if testing.Short() {
			d = time.Second
		}
	}
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			pe := newPresentEnv(t, engine)
			var agents []issuer.AgentID
			for i := range 6 {
				_, id := pe.agent(fmt.Sprintf("Agent %d", i))
				agents = append(agents, id)
			}
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()

			var mu sync.Mutex
			var all []served
			revoked := map[string]bool{}          // passportHash → revoked by the operator
			withdrawnAt := map[string]time.Time{} // kid → when its withdrawal returned
			var wg sync.WaitGroup
			for c := range 4 {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(c), 7))
					for ctx.Err() == nil {
						s, ok := pe.fetchServed(agents[r.IntN(len(agents))])
						if !ok {
							continue // no active key for a moment: 503
						}
						mu.Lock()
						all = append(all, s)
						mu.Unlock()
					}
				})
			}
			ops := map[string]int{}
			wg.Go(func() {
				r := rand.New(rand.NewPCG(99, 1))
				for ctx.Err() == nil {
					op := pe.keyOperation(r, &mu, all, revoked, withdrawnAt)
					ops[op]++
					time.Sleep(time.Duration(20+r.IntN(60)) * time.Millisecond)
				}
			})
			wg.Wait()
			// Lists are signed by the active key: make sure there is one.
			if _, err := pe.ring.Rotate(context.Background(), "", passport.EdDSA); err != nil {
				t.Fatal(err)
			}
			time.Sleep(service.StatusListDebounce + 100*time.Millisecond)
			pe.checkServed(all, revoked, withdrawnAt)
			t.Logf("%s: %d passports served, %v", engine, len(all), ops)
			if len(withdrawnAt) == 0 || len(revoked) == 0 || len(all) < 20 {
				t.Errorf("too little happened to test anything: %d served, %d withdrawn, %d revoked", len(all), len(withdrawnAt), len(revoked))
			}
		})
	}
}

// fetchServed fetches id's passport; false when no key signs now.
func (pe *presentEnv) fetchServed(id issuer.AgentID) (served, bool) {
	pe.t.Helper()
	asked := time.Now()
	r := pe.do("", "GET", issuer.PassportPath(id), "")
	if r.status == http.StatusServiceUnavailable {
		return served{}, false
	}
	must(pe.t, r, 200)
	_, p := bundlePassport(pe.t, r.body)
	return served{bundle: r.body, hash: passportHash(pe.t, r.body), kid: signingKID(pe.t, r.body), status: p.Status, asked: asked}, true
}

// keyOperation does one random operation: a rotation, a retirement or a
// withdrawal (of the active key or a retired one), or the revocation of a
// passport served so far. It returns its name.
func (pe *presentEnv) keyOperation(r *rand.Rand, mu *sync.Mutex, all []served, revoked map[string]bool, withdrawnAt map[string]time.Time) string {
	t, ctx := pe.t, context.Background()
	keys, err := pe.ring.List(ctx)
	if err != nil {
		t.Error(err)
		return "error"
	}
	var active string
	var retired []string
	for _, k := range keys {
		switch {
		case k.Status == issuer.KeyActive:
			active = k.KID
		case k.Status == issuer.KeyRetired && k.Published:
			retired = append(retired, k.KID)
		}
	}
	switch n := r.IntN(10); {
	case n < 4 || active == "":
		if _, err := pe.ring.Rotate(ctx, "", passport.EdDSA); err != nil {
			t.Errorf("rotate: %v", err)
		}
		return "rotate"
	case n < 6 && len(retired) > 0:
		kid := retired[r.IntN(len(retired))]
		return pe.withdraw(kid, mu, withdrawnAt)
	case n < 7:
		return pe.withdraw(active, mu, withdrawnAt)
	default:
		mu.Lock()
		var s served
		if len(all) > 0 {
			s = all[r.IntN(len(all))]
		}
		mu.Unlock()
		if s.hash == "" || s.status == nil {
			return "nothing to revoke"
		}
		c, err := issuer.NewStatusChange(s.hash, issuer.PassportRevoked, "revoked by the property test")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := storetest.Admin(pe.db).SetPassportStatus(ctx, c); err != nil && issuer.ErrorCode(err) != issuer.CodeConflict {
			t.Errorf("revoke: %v", err)
			return "error"
		}
		mu.Lock()
		revoked[s.hash] = true
		mu.Unlock()
		return "revoke"
	}
}

// withdraw withdraws kid and notes when the withdrawal returned.
func (pe *presentEnv) withdraw(kid string, mu *sync.Mutex, withdrawnAt map[string]time.Time) string {
	if _, err := pe.ring.Retire(context.Background(), kid, true); err != nil {
		pe.t.Errorf("withdraw %s: %v", kid, err)
		return "error"
	}
	mu.Lock()
	withdrawnAt[kid] = time.Now()
	mu.Unlock()
	return "withdraw"
}

// checkServed checks every served passport against the issuer's own record
// of its keys and the status lists served now.
func (pe *presentEnv) checkServed(all []served, revoked map[string]bool, withdrawnAt map[string]time.Time) {
	t, ctx := pe.t, context.Background()
	keys, err := pe.ring.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The full record: every key that ever signed, with its window.
	var record []verifier.TrustedKey
	for _, k := range keys {
		if k.NotBefore == nil {
			continue
		}
		pub, err := passport.ParsePublicKey([]byte(k.PublicJWK))
		if err != nil {
			t.Fatal(err)
		}
		tk := verifier.TrustedKey{Key: pub, NotBefore: *k.NotBefore}
		if k.NotAfter != nil {
			tk.NotAfter = *k.NotAfter
		}
		record = append(record, tk)
	}
	full, err := verifier.NewTrust(pe.ring.Issuer(), record...)
	if err != nil {
		t.Fatal(err)
	}
	everyKey, err := verifier.New(full)
	if err != nil {
		t.Fatal(err)
	}
	published, err := verifier.New(pe.trustFile())
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]byte{}
	for _, s := range all {
		if w, ok := withdrawnAt[s.kid]; ok && s.asked.After(w) {
			t.Errorf("passport %s of the withdrawn key %s was served to a request sent %v after its withdrawal returned", s.hash, s.kid, s.asked.Sub(w))
		}
		tk, ok := full.Lookup(s.kid)
		if !ok {
			t.Errorf("passport %s names the key %s, which the issuer has no record of", s.hash, s.kid)
			continue
		}
		_, p := bundlePassport(t, s.bundle)
		if !tk.ValidAt(p.IssuedAt.UTC()) {
			t.Errorf("passport %s was issued at %s, outside its key's window %v–%v", s.hash, p.IssuedAt, tk.NotBefore, tk.NotAfter)
		}
		policy := verifier.AnySubject()
		if s.status != nil {
			uri := s.status.StatusList.URI
			if lists[uri] == nil {
				u, _ := url.Parse(uri)
				lists[uri] = must(t, pe.do("", "GET", u.Path, ""), 200).body
			}
			policy = policy.WithStatusList(everyKey.ReadStatusList(lists[uri]))
		}
		res, err := everyKey.Verify(ctx, s.bundle, policy)
		if err != nil {
			t.Fatal(err)
		}
		_, gone := withdrawnAt[s.kid]
		want := passport.ReasonOK
		if revoked[s.hash] || gone {
			want = passport.ReasonRevoked
		}
		if res.Reason != want {
			t.Errorf("passport %s (key %s, withdrawn %v, revoked %v): %s, want %s", s.hash, s.kid, gone, revoked[s.hash], res.Reason, want)
		}
		if gone {
			res, err := published.Verify(ctx, s.bundle, verifier.AnySubject())
			if err != nil {
				t.Fatal(err)
			}
			if res.Reason != passport.ReasonKeyUnknown {
				t.Errorf("passport %s of the withdrawn key %s, against the trust file published now: %s", s.hash, s.kid, res.Reason)
			}
		}
	}
}

// bundlePassport reads a bundle's passport.
func bundlePassport(t testing.TB, bundle []byte) (*passport.Bundle, passport.Passport) {
	t.Helper()
	b, err := passport.ParseBundleUnverified(bundle)
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := b.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	return b, p
}
