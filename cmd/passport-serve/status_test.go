package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// loopbackIssuer is an issuer serving passports, its trust file and its
// status lists on loopback, over a real store, under the identifier of its
// own address; it counts the status list requests it answers.
type loopbackIssuer struct {
	url         string
	db          *store.DB
	ring        *keyring.Keyring
	statusGets  atomic.Int64
	statusFails atomic.Bool
}

func startIssuer(t *testing.T, engine store.Engine) *loopbackIssuer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	li := &loopbackIssuer{url: "http://" + ln.Addr().String(), db: storetest.Open(t, engine, store.Options{})}
	li.ring, err = keyring.New(li.db, keyring.Config{Issuer: li.url, Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := li.ring.EnsureActive(context.Background(), passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(storetest.Service(li.db), storetest.Logger(t), httpapi.Config{
		RatePerSecond: 1000, Burst: 1000, Keys: li.ring,
		Passports:   service.NewPassports(li.db, li.ring, service.PassportOptions{}),
		StatusLists: service.NewStatusLists(li.db, li.ring, service.StatusListOptions{}),
	})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/status/") {
			li.statusGets.Add(1)
			if li.statusFails.Load() {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return
			}
		}
		api.ServeHTTP(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return li
}

// get returns the body of a 200 answer to GET path.
func (li *loopbackIssuer) get(t *testing.T, path string) []byte {
	t.Helper()
	res, err := http.Get(li.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %s %s", path, res.Status, b)
	}
	return b
}

// passportOf creates an agent and returns its passport's bundle and hash.
func (li *loopbackIssuer) passportOf(t *testing.T, name string) ([]byte, string) {
	t.Helper()
	a, err := storetest.Admin(li.db).CreateAgent(context.Background(), service.NewAgent{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	bundle := li.get(t, "/api/public/agents/"+string(a.ID)+"/passport")
	b, err := passport.ParseBundleUnverified(bundle)
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := b.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	return bundle, snap.PassportHash
}

// startVerifier runs passport-serve with args until the test ends and
// returns its URL.
func startVerifier(t *testing.T, args ...string) string {
	t.Helper()
	return startServe(t, args...).URL
}

// served is a passport-serve run on a free loopback port: its URL, its
// address and what it logs.
type served struct {
	URL, Addr string
	Logs      *clitest.Buffer
	stop      func()
}

// startServe runs passport-serve with args (and --addr 127.0.0.1:0) until
// Stop or the end of the test, which fails if it exits other than 0.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{Logs: &clitest.Buffer{}}
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, append(args, "--addr", "127.0.0.1:0"), strings.NewReader(""), &bytes.Buffer{}, s.Logs)
	}()
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			if code := <-exit; code != 0 {
				t.Errorf("passport-serve exited %d: %s", code, s.Logs.String())
			}
		})
	}
	t.Cleanup(s.stop)
	addrRE := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(s.Logs.String()); m != nil {
			s.Addr, s.URL = m[1], "http://"+m[1]
			return s
		} else if time.Now().After(deadline) {
			t.Fatalf("passport-serve did not start: %s", s.Logs.String())
		}
	}
}

// Stop stops the server and waits for it to exit.
func (s *served) Stop() { s.stop() }

// verifyAt posts bundle to a passport-serve and returns its result.
func verifyAt(t *testing.T, base string, bundle []byte) *verifier.Result {
	t.Helper()
	res, err := http.Post(base+"/v1/verify", "application/json", bytes.NewReader(bundle))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out verifier.Result
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		t.Fatalf("verify: %s %v", res.Status, err)
	}
	return &out
}

// TestServeAppliesTheStatusList: passport-serve with --status-url fetches
// the list a passport names from a loopback issuer, once for its ttl, and
// reports a revoked passport revoked and a valid one valid; a list it may
// not fetch is not_checked; a list it cannot fetch, with none held, is
// status_list_invalid, saying why.
func TestServeAppliesTheStatusList(t *testing.T) {
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			li := startIssuer(t, engine)
			valid, _ := li.passportOf(t, "valid")
			revoked, hash := li.passportOf(t, "revoked")
			c, err := issuer.NewStatusChange(hash, issuer.PassportRevoked, "test")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := storetest.Admin(li.db).SetPassportStatus(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			trust := filepath.Join(t.TempDir(), "trust.json")
			if err := os.WriteFile(trust, li.get(t, "/.well-known/passport-trust.json"), 0o600); err != nil {
				t.Fatal(err)
			}

			base := startVerifier(t, "--trust", trust, "--status-url", li.url+"/status/")
			res := verifyAt(t, base, valid)
			if s := res.Check(verifier.CheckStatus); !res.Verified || !s.OK {
				t.Fatalf("a valid passport: verified %v, status %+v", res.Verified, s)
			}
			res = verifyAt(t, base, revoked)
			if s := res.Check(verifier.CheckStatus); res.Verified || res.Reason != passport.ReasonRevoked || s.Reason != passport.ReasonRevoked {
				t.Fatalf("a revoked passport: verified %v (%s), status %+v", res.Verified, res.Reason, s)
			}
			if n := li.statusGets.Load(); n != 1 {
				t.Fatalf("the list was fetched %d times for two verifications within its ttl", n)
			}

			other := startVerifier(t, "--trust", trust, "--status-url", li.url+"/elsewhere/")
			if s := verifyAt(t, other, revoked).Check(verifier.CheckStatus); s.Reason != passport.ReasonNotChecked {
				t.Fatalf("a list passport-serve may not fetch: status %+v", s)
			}

			li.statusFails.Store(true)
			down := startVerifier(t, "--trust", trust, "--status-url", li.url+"/status/")
			res = verifyAt(t, down, valid)
			if s := res.Check(verifier.CheckStatus); res.Verified || s.Reason != passport.ReasonStatusListInvalid || !strings.Contains(s.Detail, "503") {
				t.Fatalf("a list that cannot be fetched: verified %v, status %+v", res.Verified, s)
			}
		})
	}
}
