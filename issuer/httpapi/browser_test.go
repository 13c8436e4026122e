package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// chromium starts a fresh headless Chromium (Debian's package, or
// $PASSPORT_CHROMIUM) for the test; without one the test skips, unless CI
// is set, where it fails.
func chromium(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("PASSPORT_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		if storetest.Required() {
			t.Fatalf("no Chromium at %s", path)
		}
		t.Skipf("the browser test needs Chromium, and there is none at %s (apt-get install chromium)", path)
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(cancel)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(cancelCtx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelT)
	return ctx
}

// seen records the requests a server answered, as "METHOD route status".
type seen struct {
	mu  sync.Mutex
	log []string
}

func (s *seen) ObserveRequest(method, route string, status int, _ time.Duration, _ int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, fmt.Sprintf("%s %s %d", method, route, status))
}

func (s *seen) count(entry string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.log {
		if e == entry {
			n++
		}
	}
	return n
}

// pageScript runs in a page of another origin than the issuer's: it
// fetches a passport, the JWK set and the trust file, verifies the
// passport's signature with WebCrypto, revalidates the passport, asks for
// a comparison (a preflighted POST), and tries a write with a key.
const pageScript = `(async (issuer, agent, key, publication) => {
	const out = {};
	const bytes = s => {
		s = s.replace(/-/g, "+").replace(/_/g, "/");
		while (s.length %% 4) s += "=";
		return Uint8Array.from(atob(s), c => c.charCodeAt(0));
	};
	const passportURL = issuer + "/api/public/agents/" + agent + "/passport";
	const res = await fetch(passportURL, {cache: "no-store"});
	out.etag = res.headers.get("ETag") || "";
	out.requestId = res.headers.get("X-Request-Id") || "";
	const bundle = await res.json();
	const jwks = await (await fetch(issuer + "/.well-known/jwks.json")).json();
	const trust = await (await fetch(issuer + "/.well-known/passport-trust.json")).json();

	const [h, p, s] = bundle.credential.split(".");
	const header = JSON.parse(new TextDecoder().decode(bytes(h)));
	out.alg = header.alg;
	const jwk = jwks.keys.find(k => k.kid === header.kid);
	out.inTrustFile = trust.keys.some(k => k.kid === header.kid && k.x === jwk.x);
	const pub = await crypto.subtle.importKey("jwk", {kty: jwk.kty, crv: jwk.crv, x: jwk.x}, {name: "Ed25519"}, false, ["verify"]);
	const input = new TextEncoder().encode(h + "." + p);
	out.verified = await crypto.subtle.verify({name: "Ed25519"}, pub, bytes(s), input);
	const tampered = input.slice();
	tampered[tampered.length - 1] ^= 1;
	out.tamperedVerified = await crypto.subtle.verify({name: "Ed25519"}, pub, bytes(s), tampered);

	const again = await fetch(passportURL, {cache: "no-store", headers: {"If-None-Match": out.etag}});
	out.revalidated = again.status;
	const cmp = await fetch(issuer + "/api/public/trust/assess", {method: "POST",
		headers: {"Content-Type": "application/json"}, body: JSON.stringify({agents: [agent], skills: ["Haskell"]})});
	out.assess = cmp.status;
	try {
		await fetch(issuer + "/api/memories", {method: "POST",
			headers: {"Content-Type": "application/json", "Authorization": "Bearer " + key}, body: publication});
		out.write = "sent";
	} catch (e) {
		out.write = e.name;
	}
	return out;
})(%q, %q, %q, %q)`

type pageResult struct {
	ETag             string `json:"etag"`
	RequestID        string `json:"requestId"`
	Alg              string `json:"alg"`
	InTrustFile      bool   `json:"inTrustFile"`
	Verified         bool   `json:"verified"`
	TamperedVerified bool   `json:"tamperedVerified"`
	Revalidated      int    `json:"revalidated"`
	Assess           int    `json:"assess"`
	Write            string `json:"write"`
}

// TestCrossOriginInBrowser serves a page from one loopback origin and the
// issuer from another: in headless Chromium the page reads a passport and
// the key documents, verifies the signature with WebCrypto's Ed25519,
// revalidates with If-None-Match and compares agents, while a write with
// a key is stopped at its preflight and never reaches the issuer.
func TestCrossOriginInBrowser(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	obs := &seen{}
	pe := newPublicEnv(t, obs)
	key, _ := pe.agent("Writer", issuer.ScopePublish)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html lang=en><title>another origin</title><p>page</p>")
	}))
	t.Cleanup(page.Close)
	publication := `{"category":"Go / Testing","title":"Table tests","content":"Table tests keep cases apart.","appliesTo":{"skill":"Go"},"confidence":0.6}`
	// The write is one the issuer would accept, from the same origin.
	if err := chromedp.Do(ctx, chromedp.Navigate(page.URL)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	script := fmt.Sprintf(pageScript, pe.srv.URL, pe.main, key, publication)
	out, err := chromedp.Run(ctx, chromedp.Evaluate[pageResult](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the page's script: %v", err)
	}
	b, _ := json.Marshal(out)
	t.Logf("the page saw %s", b)
	if out.Alg != "EdDSA" || !out.InTrustFile || !out.Verified || out.TamperedVerified {
		t.Errorf("signature: %s", b)
	}
	if out.ETag == "" || out.RequestID == "" {
		t.Errorf("exposed headers: %s", b)
	}
	if out.Revalidated != 304 || out.Assess != 200 {
		t.Errorf("revalidation %d, comparison %d", out.Revalidated, out.Assess)
	}
	if out.Write != "TypeError" {
		t.Errorf("the cross-origin write: %q", out.Write)
	}
	if n := obs.count("POST /api/memories 201") + obs.count("POST /api/memories 401"); n != 0 {
		t.Errorf("the write reached the issuer: %v", obs.log)
	}
	if obs.count("OPTIONS unmatched 405") != 1 || obs.count("OPTIONS /api/public/trust/assess 204") != 1 {
		t.Errorf("preflights: %v", obs.log)
	}
	// The same write from the issuer's own origin is accepted.
	must(t, pe.do(key, "POST", "/api/memories", publication), 201)
}
