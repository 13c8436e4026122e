package verifierhttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
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
