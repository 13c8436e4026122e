package verifierhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
	"github.com/remnant/passportkit/verifier/verifierhttp"
)

// listServer serves a status list token at /lists/… and counts the
// requests; answer, when set, answers instead.
type listServer struct {
	*httptest.Server
	token  []byte
	gets   atomic.Int64
	mu     sync.Mutex
	answer http.HandlerFunc
}

func newListServer(t *testing.T, token []byte) *listServer {
	t.Helper()
	ls := &listServer{token: token}
	ls.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ls.gets.Add(1)
		ls.mu.Lock()
		answer := ls.answer
		ls.mu.Unlock()
		if answer != nil {
			answer(w, r)
			return
		}
		w.Header().Set("Content-Type", statuslist.MediaType)
		w.Write(ls.token)
	}))
	t.Cleanup(ls.Close)
	return ls
}

func (ls *listServer) set(h http.HandlerFunc) { ls.mu.Lock(); ls.answer = h; ls.mu.Unlock() }

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// vectorList returns a verifier of the vectors' trust file and the token
// and time of the vector with a valid status list.
func vectorList(t *testing.T) (*verifier.Verifier, []byte, time.Time) {
	t.Helper()
	v, cases := vectorVerifier(t)
	for _, c := range cases {
		if c.Name == "valid_status_list" {
			return v, c.StatusList, c.At
		}
	}
	t.Fatal("no vector valid_status_list")
	return nil, nil, time.Time{}
}

// TestStatusFetcher: a list is fetched once and held until its iat + ttl;
// a failed fetch keeps the list held (retried after RetryAfter); with none
// held, a failure is status_list_invalid saying why — an error status, a
// redirect, another media type, a body over the bound; a URI outside the
// allowed ones is never fetched.
func TestStatusFetcher(t *testing.T) {
	v, token, at := vectorList(t)
	ls := newListServer(t, token)
	clock := &testClock{t: at}
	newFetcher := func() *verifierhttp.StatusFetcher {
		t.Helper()
		f, err := verifierhttp.NewStatusFetcher(v, verifierhttp.StatusConfig{URLs: []string{ls.URL + "/lists/", ls.URL + "/one"},
			RetryAfter: 10 * time.Second, Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	ctx := context.Background()
	f := newFetcher()
	uri := ls.URL + "/lists/a"
	held := f.List(ctx, uri)
	if held == nil || held.Err() != nil || ls.gets.Load() != 1 {
		t.Fatalf("first fetch: %v, %d requests", held, ls.gets.Load())
	}
	if again := f.List(ctx, uri); again != held || ls.gets.Load() != 1 {
		t.Fatalf("within the ttl the list was fetched again (%d requests)", ls.gets.Load())
	}
	clock.Set(held.RefreshAt())
	if next := f.List(ctx, uri); next == held || next.Err() != nil || ls.gets.Load() != 2 {
		t.Fatalf("once the ttl ran out: %d requests", ls.gets.Load())
	}

	ls.set(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	clock.Set(held.RefreshAt().Add(time.Hour))
	kept := f.List(ctx, uri)
	if kept.Err() != nil || ls.gets.Load() != 3 {
		t.Fatalf("a failed fetch dropped the held list: %v (%d requests)", kept.Err(), ls.gets.Load())
	}
	if f.List(ctx, uri); ls.gets.Load() != 3 {
		t.Fatal("a failed fetch was retried before RetryAfter")
	}

	for name, answer := range map[string]http.HandlerFunc{
		"503": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) },
		"302": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/one", http.StatusFound) },
		"application/json": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(token)
		},
		"limit": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", statuslist.MediaType)
			w.Write(bytes.Repeat([]byte{'A'}, verifier.MaxStatusListSize+1))
		},
	} {
		ls.set(answer)
		l := newFetcher().List(ctx, uri)
		if passport.ReasonOf(l.Err()) != passport.ReasonStatusListInvalid || !strings.Contains(l.Err().Error(), name) {
			t.Errorf("%s: %v", name, l.Err())
		}
	}

	before := ls.gets.Load()
	for _, outside := range []string{ls.URL + "/listsx", ls.URL + "/one/two", "https://elsewhere.example/lists/a"} {
		if l := f.List(ctx, outside); l != nil || ls.gets.Load() != before {
			t.Errorf("%s was fetched", outside)
		}
	}
	for _, bad := range []string{"ftp://x/", "/status/", "https://", "https://u@h/status/"} {
		if _, err := verifierhttp.NewStatusFetcher(v, verifierhttp.StatusConfig{URLs: []string{bad}}); err == nil {
			t.Errorf("status URL %q was accepted", bad)
		}
	}
}

// tokenTransport answers every request with a status list token.
type tokenTransport []byte

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {statuslist.MediaType}},
		Body: io.NopCloser(bytes.NewReader(t)), Request: r}, nil
}

// TestHTTPAppliesStatusLists: with a StatusFetcher, POST /v1/verify and
// POST /v1/verify/presentation apply the list the passport names, the
// latter to the bundle the presentation holds.
func TestHTTPAppliesStatusLists(t *testing.T) {
	v, cases := vectorVerifier(t)
	byName := map[string]vectors.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	q := "?at=2026-06-01T00:00:00Z&aud=https%3A%2F%2Fverifier.example&nonce=n-7Kq2xW9fLp"
	for path, c := range map[string]vectors.Case{"/v1/verify": byName["status_revoked_fail"], "/v1/verify/presentation": byName["presentation_bundle_revoked_fail"]} {
		body, bundle := c.Bundle, c.Bundle
		if len(c.Presentation) > 0 {
			p, err := passport.ParsePresentationUnverified(c.Presentation)
			if err != nil {
				t.Fatal(err)
			}
			body, bundle = c.Presentation, p.Bundle
		}
		uri, ok := passportStatusURI(t, bundle)
		if !ok {
			t.Fatalf("%s: the vector's passport names no status list", c.Name)
		}
		f, err := verifierhttp.NewStatusFetcher(v, verifierhttp.StatusConfig{URLs: []string{uri},
			Client: &http.Client{Transport: tokenTransport(c.StatusList)}, Now: func() time.Time { return c.At }})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(verifierhttp.NewHandler(v, verifierhttp.Config{Status: f}))
		t.Cleanup(srv.Close)
		res, b := post(t, srv.URL+path+q, body, nil)
		var out verifier.Result
		if err := json.Unmarshal(b, &out); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %s %s", path, res.Status, b)
		}
		if out.Verified || out.Reason != passport.ReasonRevoked {
			t.Errorf("%s: verified %v, reason %s", path, out.Verified, out.Reason)
		}
	}
}

// passportStatusURI reads the status uri of the passport in bundle.
func passportStatusURI(t *testing.T, bundle []byte) (string, bool) {
	t.Helper()
	b, err := passport.ParseBundleUnverified(bundle)
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := b.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	if p.Status == nil {
		return "", false
	}
	return p.Status.StatusList.URI, true
}
