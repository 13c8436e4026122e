package store_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// stack is one issuer process: its own pool on the shared database, its
// keyring over the shared key directory, and its passport cache.
type stack struct {
	db        *store.DB
	ring      *keyring.Keyring
	passports *service.Passports
}

// stacks opens n issuer processes on one fresh, migrated database of
// engine, all on the clock now (time.Now when nil).
func stacks(t *testing.T, engine store.Engine, n int, now func() time.Time) []stack {
	t.Helper()
	dsn, dir := storetest.URL(t, engine), filepath.Join(t.TempDir(), "keys")
	out := make([]stack, n)
	for i := range out {
		db, err := store.Open(context.Background(), dsn, store.Options{Now: now, Logger: storetest.Logger(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if i == 0 {
			if _, err := db.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: dir, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = stack{db: db, ring: ring, passports: service.NewPassports(db, ring, service.PassportOptions{Now: now})}
	}
	return out
}

// exportedVerifier is a verifier holding the trust file the keyring
// exports now, parsed from its bytes as a relying party would.
func exportedVerifier(t *testing.T, ring *keyring.Keyring) *verifier.Verifier {
	t.Helper()
	b, err := ring.TrustFile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.ParseTrust(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// signedBy returns the kid in the protected header of is's credential.
func signedBy(t *testing.T, is *issuing.Issued) string {
	t.Helper()
	b, err := passport.ParseBundleUnverified(is.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.Credential, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		KID string `json:"kid"`
	}
	if err := json.Unmarshal(raw, &h); err != nil || h.KID == "" {
		t.Fatalf("protected header %s: %v", raw, err)
	}
	return h.KID
}

// failure names the check res failed, with its reason and detail.
func failure(res *verifier.Result) string {
	for _, c := range res.Checks {
		if !c.OK {
			return fmt.Sprintf("%s: %s (%s)", c.Name, c.Reason, c.Detail)
		}
	}
	return string(res.Reason)
}

// TestWithdrawalReachesEveryProcess: once `keys retire --withdraw` has
// returned, no issuer process serves a passport signed by the withdrawn
// key, though each has the hour's passport cached: every passport served
// afterwards is signed by a published key and verifies against the trust
// file exported then. Withdrawing the active key leaves none to sign
// with: the processes refuse rather than serve what they cached.
func TestWithdrawalReachesEveryProcess(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			ps := stacks(t, engine, 2, nil)
			f := newFixture(t, ps[0].db)
			a := f.agent("subject")
			f.publish(a, "go")
			if _, err := ps[0].ring.EnsureActive(ctx, passport.EdDSA); err != nil {
				t.Fatal(err)
			}
			// serve fetches the subject's passport from every process, each
			// disclosure and both routes, and returns the kids that signed.
			serve := func() (map[string]bool, error) {
				kids := map[string]bool{}
				for i, s := range ps {
					for _, d := range []issuing.Disclosure{issuing.DisclosePreviews, issuing.DiscloseAll} {
						for route, fetch := range map[string]func(context.Context, issuer.AgentID, issuing.Disclosure) (*issuing.Issued, error){
							"Issue": s.passports.Issue, "Latest": s.passports.Latest,
						} {
							is, err := fetch(ctx, a.AgentID, d)
							if err != nil {
								return nil, fmt.Errorf("process %d, %s %s: %w", i, route, d, err)
							}
							kids[signedBy(t, is)] = true
						}
					}
				}
				return kids, nil
			}
			checkServed := func(stage string) map[string]bool {
				t.Helper()
				v := exportedVerifier(t, ps[1].ring)
				kids := map[string]bool{}
				for i, s := range ps {
					is, err := s.passports.Issue(ctx, a.AgentID, issuing.DisclosePreviews)
					if err != nil {
						t.Fatalf("%s: process %d: %v", stage, i, err)
					}
					res, err := v.Verify(ctx, is.Bundle, verifier.AnySubject())
					if err != nil || !res.Verified {
						t.Fatalf("%s: process %d served a passport signed by %s that does not verify against the exported trust file: %v %s",
							stage, i, signedBy(t, is), err, failure(res))
					}
					kids[signedBy(t, is)] = true
				}
				return kids
			}
			first, err := serve()
			if err != nil {
				t.Fatal(err)
			}
			checkServed("before any change")

			rot, err := ps[0].ring.Rotate(ctx, "", passport.EdDSA)
			if err != nil {
				t.Fatal(err)
			}
			// The retired key stays published: what it signed still verifies.
			checkServed("after a rotation")

			if _, err := ps[0].ring.Retire(ctx, rot.Retired.KID, true); err != nil {
				t.Fatal(err)
			}
			kids, err := serve()
			if err != nil {
				t.Fatal(err)
			}
			if kids[rot.Retired.KID] || len(kids) != 1 || !kids[rot.Active.KID] {
				t.Fatalf("after withdrawing %s (which signed %v), passports were served signed by %v; only %s is published",
					rot.Retired.KID, first, kids, rot.Active.KID)
			}
			checkServed("after withdrawing the retired key")

			// Withdrawing the active key: nothing may be signed until a
			// rotation, and nothing cached is served meanwhile.
			if _, err := ps[1].ring.Retire(ctx, rot.Active.KID, true); err != nil {
				t.Fatal(err)
			}
			if kids, err := serve(); issuer.ErrorCode(err) != issuer.CodeUnavailable || !errors.Is(err, keyring.ErrNoActiveKey) {
				t.Fatalf("with the active key withdrawn: served %v, %v", kids, err)
			}
			next, err := ps[1].ring.Rotate(ctx, "", passport.EdDSA)
			if err != nil {
				t.Fatal(err)
			}
			if kids := checkServed("after the next rotation"); len(kids) != 1 || !kids[next.Active.KID] {
				t.Fatalf("after the next rotation, served %v", kids)
			}
		})
	}
}

var keyStorm = flag.Duration("keystorm", 3*time.Second, "how long TestIssuedWithinKeyWindowDuringRotation requests passports while keys change")

// TestIssuedWithinKeyWindowDuringRotation requests passports of a few
// subjects from several goroutines and two processes while another
// rotates keys, and now and then retires the active key before the next
// rotation. Every passport served was issued inside its signing key's
// window, per the trust file exported after the run, and verifies against
// it. The clock every part reads moves forward at each reading, so that
// seconds turn while a passport is being built and a rotation commits
// (-keystorm sets how long the storm lasts).
func TestIssuedWithinKeyWindowDuringRotation(t *testing.T) {
	if testing.Short() {
		t.Skip("a storm of passport requests during key rotations")
	}
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			clock := storetest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), 37*time.Millisecond)
			ps := stacks(t, engine, 2, clock.Now)
			f := newFixture(t, ps[0].db)
			var subjects []issuer.AgentID
			for i := range 3 {
				a := f.agent(fmt.Sprint("subject ", i))
				f.publish(a, "go")
				subjects = append(subjects, a.AgentID)
			}
			if _, err := ps[0].ring.EnsureActive(ctx, passport.EdDSA); err != nil {
				t.Fatal(err)
			}

			var (
				mu      sync.Mutex
				served  []*issuing.Issued
				stop    atomic.Bool
				wg      sync.WaitGroup
				changes atomic.Int64
			)
			fail := make(chan error, 16)
			for g := range 6 {
				s := ps[g%len(ps)]
				wg.Go(func() {
					for i := 0; !stop.Load(); i++ {
						id := subjects[(g+i)%len(subjects)]
						s.passports.Invalidate(id) // a build per request
						is, err := s.passports.Issue(ctx, id, issuing.DiscloseNone)
						if issuer.ErrorCode(err) == issuer.CodeUnavailable {
							continue // no key active for a moment
						}
						if err != nil {
							fail <- err
							return
						}
						mu.Lock()
						served = append(served, is)
						mu.Unlock()
					}
				})
			}
			wg.Go(func() {
				for i := 0; !stop.Load() && changes.Load() < verifier.MaxTrustedKeys-4; i++ {
					s := ps[i%len(ps)]
					if i%5 == 4 {
						if _, k, err := s.ring.Active(ctx); err == nil {
							if _, err := s.ring.Retire(ctx, k.KID, false); err != nil {
								fail <- err
								return
							}
						}
					}
					if _, err := s.ring.Rotate(ctx, "", passport.EdDSA); err != nil {
						fail <- err
						return
					}
					changes.Add(1)
					time.Sleep(*keyStorm / verifier.MaxTrustedKeys)
				}
			})
			time.Sleep(*keyStorm)
			stop.Store(true)
			wg.Wait()
			close(fail)
			for err := range fail {
				t.Fatal(err)
			}

			trust, err := ps[0].ring.Trust(ctx)
			if err != nil {
				t.Fatal(err)
			}
			v := exportedVerifier(t, ps[0].ring)
			signers := map[string]int{}
			for _, is := range served {
				at, kid := is.Passport.IssuedAt.UTC(), signedBy(t, is)
				k, ok := trust.Lookup(kid)
				if !ok {
					t.Fatalf("passport %s signed by %s, which the trust file does not publish", is.PassportHash, kid)
				}
				if at.Before(k.NotBefore) || !k.NotAfter.IsZero() && at.After(k.NotAfter) {
					t.Fatalf("passport %s issued at %s, outside the window [%s, %s] of its key %s",
						is.PassportHash, at, k.NotBefore, k.NotAfter, kid)
				}
				res, err := v.Verify(ctx, is.Bundle, verifier.AnySubject().At(at))
				if err != nil || !res.Verified {
					t.Fatalf("passport %s: %v %s", is.PassportHash, err, failure(res))
				}
				signers[kid]++
			}
			t.Logf("%d passports signed by %d keys over %d key changes", len(served), len(signers), changes.Load())
			if len(signers) < 3 {
				t.Fatalf("passports were signed by %d keys only: the storm did not overlap the rotations", len(signers))
			}
		})
	}
}

// TestKeyChangesChangeTheRevision: every key change replaces the keys
// epoch, which SubjectRevision, RevisionOf and LoadSubject read with the
// subject's own token; the subject's token, which the discovery index and
// the skill history are kept under, stays, so a key change re-indexes no
// one. Adding a ready key changes nothing. On PostgreSQL each change is
// announced to every listener as a change of every subject.
func TestKeyChangesChangeTheRevision(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		a := f.agent("subject")
		f.publish(a, "go")
		ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
		if err != nil {
			t.Fatal(err)
		}
		announced := make(chan issuer.AgentID, 64)
		listenCtx, stop := context.WithCancel(ctx)
		listening := make(chan error, 1)
		go func() { listening <- db.ListenRevisions(listenCtx, func(id issuer.AgentID) { announced <- id }) }()
		defer func() { stop(); <-listening }()
		if db.Engine() == store.Postgres {
			time.Sleep(200 * time.Millisecond) // the listener's LISTEN
		}
		p := service.NewPassports(db, ring, service.PassportOptions{})
		d := service.NewDiscovery(db, p, storetest.Sealer(t, db), service.DiscoveryOptions{})
		if _, err := d.IndexSubject(ctx, a.AgentID); err != nil {
			t.Fatal(err)
		}
		revisions := func() (string, string) {
			t.Helper()
			rev, err := db.SubjectRevision(ctx, a.AgentID)
			if err != nil {
				t.Fatal(err)
			}
			if of, err := db.RevisionOf(ctx, a.AgentID); err != nil || of != rev {
				t.Fatalf("RevisionOf %q (%v), SubjectRevision %q", of, err, rev)
			}
			s, err := db.LoadSubject(ctx, a.AgentID, time.Now)
			if err != nil || s.Revision != rev {
				t.Fatalf("LoadSubject's revision %q (%v), SubjectRevision %q", s.Revision, err, rev)
			}
			return rev, service.SubjectToken(rev)
		}
		rev, token := revisions()
		if token == "" || token == rev {
			t.Fatalf("revision %q, subject token %q", rev, token)
		}
		var rot keyring.Rotation
		for i, change := range []func() error{
			func() error { _, err := ring.EnsureActive(ctx, passport.EdDSA); return err },
			func() (err error) { rot, err = ring.Rotate(ctx, "", passport.ES256); return err },
			func() error { _, err := ring.Retire(ctx, rot.Retired.KID, true); return err },
			func() error { _, err := ring.Retire(ctx, rot.Active.KID, false); return err },
		} {
			if err := change(); err != nil {
				t.Fatalf("change %d: %v", i, err)
			}
			next, nextToken := revisions()
			if next == rev || nextToken != token {
				t.Fatalf("change %d: revision %q → %q, subject token %q → %q", i, rev, next, token, nextToken)
			}
			rev = next
			pending, err := db.PendingSubjects(ctx, time.Now().UTC().Format(time.DateOnly), 10)
			if err != nil || len(pending) != 0 {
				t.Fatalf("change %d: pending re-indexing %v (%v)", i, pending, err)
			}
			for db.Engine() == store.Postgres {
				select {
				case id := <-announced:
					if id != "" {
						continue // the subject's own writes
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("change %d was not announced", i)
				}
				break
			}
		}
		if _, err := ring.Generate(ctx, passport.EdDSA); err != nil {
			t.Fatal(err)
		}
		if next, _ := revisions(); next != rev {
			t.Fatalf("a ready key changed the revision %q → %q", rev, next)
		}
	})
}
