package verifierhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// TestHTTPOverloaded fills every verification slot and checks that a
// request which cannot get one is refused with 503 after QueueWait.
func TestHTTPOverloaded(t *testing.T) {
	key, err := passport.NewPrivateKey(passport.EdDSA, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.NewTrust("https://issuer.example", verifier.TrustedKey{Key: key.Public()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(v, Config{MaxConcurrent: 1, QueueWait: 10 * time.Millisecond})
	srv := httptest.NewServer(h.routes())
	defer srv.Close()

	h.slots <- struct{}{} // occupy the only slot
	resp, err := http.Post(srv.URL+"/v1/verify", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	<-h.slots
	resp, err = http.Post(srv.URL+"/v1/verify", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("with a free slot: status %d, want 200", resp.StatusCode)
	}
}

// FuzzStatusURIUnverified: reading the status URI of any bytes never
// panics, and a bundle that verifies (at the vectors' time) yields the uri
// of its verified passport, or none when it has no status.
func FuzzStatusURIUnverified(f *testing.F) {
	trustJSON, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		f.Fatal(err)
	}
	trust, err := verifier.ParseTrust(trustJSON)
	if err != nil {
		f.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.Bundle)
	}
	f.Fuzz(func(t *testing.T, bundle []byte) {
		uri, ok := statusURIUnverified(bundle)
		res, err := v.Verify(context.Background(), bundle, verifier.AnySubject().At(cases[0].At))
		if err != nil || !res.Verified {
			return
		}
		var p struct {
			Status *passport.StatusRef `json:"status"`
		}
		if err := json.Unmarshal(res.Passport, &p); err != nil {
			t.Fatal(err)
		}
		if ok != (p.Status != nil) || ok && uri != p.Status.StatusList.URI {
			t.Fatalf("read %q (%v); the verified passport names %+v", uri, ok, p.Status)
		}
	})
}
