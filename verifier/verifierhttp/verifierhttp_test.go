package verifierhttp_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
	"github.com/remnant/passportkit/verifier/verifierhttp"
)

// vectorVerifier returns a verifier of the vectors' trust file and the
// vectors.
func vectorVerifier(t *testing.T) (*verifier.Verifier, []vectors.Case) {
	t.Helper()
	trustJSON, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.ParseTrust(trustJSON)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	return v, cases
}

// newServer serves the vectors' trust file and returns each vector's
// input, a bundle or a presentation, by name.
func newServer(t *testing.T, cfg verifierhttp.Config) (*httptest.Server, map[string][]byte) {
	t.Helper()
	v, cases := vectorVerifier(t)
	srv := httptest.NewServer(verifierhttp.NewHandler(v, cfg))
	t.Cleanup(srv.Close)
	bundles := map[string][]byte{}
	for _, c := range cases {
		bundles[c.Name] = append(c.Bundle, c.Presentation...)
	}
	return srv, bundles
}

func post(t *testing.T, url string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	// The document's own media type, which the service accepts as it
	// accepts application/json.
	req.Header.Set("Content-Type", passport.MediaType)
	if strings.Contains(url, "/presentation") {
		req.Header.Set("Content-Type", passport.PresentationMediaType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// verifyCase is one request to a verification endpoint and what it must
// answer: a status and, for 200, the verdict and reason.
type verifyCase struct {
	name     string
	body     []byte
	header   map[string]string
	query    string
	status   int
	verified bool
	reason   string
}

// runVerifyCases posts each case to url and checks its answer; check, when
// set, checks a result further.
func runVerifyCases(t *testing.T, url string, tests []verifyCase, check func(t *testing.T, res *verifier.Result)) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, url+tt.query, tt.body, tt.header)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status != 200 {
				assertProblem(t, resp, body, tt.status)
				return
			}
			var res verifier.Result
			if err := json.Unmarshal(body, &res); err != nil {
				t.Fatal(err)
			}
			if res.Verified != tt.verified || string(res.Reason) != tt.reason {
				t.Errorf("verified %v reason %s, want %v %s", res.Verified, res.Reason, tt.verified, tt.reason)
			}
			check(t, &res)
		})
	}
}

func TestHTTPVerify(t *testing.T) {
	srv, bundles := newServer(t, verifierhttp.Config{})
	at := "?at=2026-06-01T00:00:00Z"
	tests := []verifyCase{
		{"verified", bundles["valid_eddsa"], nil, at, 200, true, "ok"},
		{"verified gzip", gz(bundles["valid_es256"]), map[string]string{"Content-Encoding": "gzip"}, at, 200, true, "ok"},
		{"not verified is still 200", bundles["tampered_leaf_fail"], nil, at, 200, false, "evidence_proof_invalid"},
		{"subject policy", bundles["valid_eddsa"], nil, at + "&subject=agt_other", 200, false, "subject_mismatch"},
		{"near the limit", bundles["valid_near_limit"], nil, at, 200, true, "ok"},
		{"over 512 KiB", bundles["over_512kib_fail"], nil, at, 413, false, ""},
		{"over 512 KiB after decompression", gz(append(bytes.Repeat([]byte(" "), 600<<10), '{', '}')), map[string]string{"Content-Encoding": "gzip"}, at, 413, false, ""},
		{"gzip bomb", gz(bytes.Repeat([]byte("0"), 64<<20)), map[string]string{"Content-Encoding": "gzip"}, at, 413, false, ""},
		{"not gzip", []byte("plain"), map[string]string{"Content-Encoding": "gzip"}, at, 400, false, ""},
		{"unknown encoding", []byte("{}"), map[string]string{"Content-Encoding": "br"}, at, 415, false, ""},
		{"bad at", bundles["valid_eddsa"], nil, "?at=tomorrow", 400, false, ""},
	}
	runVerifyCases(t, srv.URL+"/v1/verify", tests, func(t *testing.T, res *verifier.Result) {
		// Without ?subject= the subject check is not_required, never ok.
		if c := res.Check(verifier.CheckSubject); res.Verified && (c.Name != verifier.CheckSubject || c.OK || c.Reason != passport.ReasonNotRequired) {
			t.Errorf("subject check %+v, want not_required", c)
		}
	})
}

// TestHTTPVerifyPresentation checks POST /v1/verify/presentation: the
// presentation policy in the query, checked before the body is read, and
// the bound of a presentation.
func TestHTTPVerifyPresentation(t *testing.T) {
	srv, inputs := newServer(t, verifierhttp.Config{})
	q := "?at=2026-06-01T00:00:00Z&aud=https%3A%2F%2Fverifier.example&nonce=n-7Kq2xW9fLp"
	tests := []verifyCase{
		{"verified", inputs["valid_presentation_eddsa"], nil, q, 200, true, "ok"},
		{"verified gzip", gz(inputs["valid_presentation_es256"]), map[string]string{"Content-Encoding": "gzip"}, q, 200, true, "ok"},
		{"subject", inputs["valid_presentation_eddsa"], nil, q + "&subject=agt_7Qm2xKp9Lr4Vt8Wn", 200, true, "ok"},
		{"another subject", inputs["valid_presentation_eddsa"], nil, q + "&subject=agt_other", 200, false, "subject_mismatch"},
		{"another nonce", inputs["valid_presentation_eddsa"], nil, "?at=2026-06-01T00:00:00Z&aud=https%3A%2F%2Fverifier.example&nonce=n0", 200, false, "kb_nonce_mismatch"},
		{"a shorter maximum age", inputs["valid_presentation_max_age_boundary"], nil, q + "&maxAge=299", 200, false, "kb_stale"},
		{"maximum age at its bound", inputs["valid_presentation_eddsa"], nil, q + "&maxAge=86400", 200, true, "ok"},
		{"a bundle", inputs["valid_v02_cnf"], nil, q, 200, false, "presentation_malformed"},
		{"a presentation over 512 KiB", inputs["presentation_bundle_too_large_fail"], nil, q, 200, false, "bundle_too_large"},
		{"over 520 KiB", inputs["presentation_too_large_fail"], nil, q, 413, false, ""},
		{"no nonce", []byte("not read"), nil, "?aud=x", 400, false, ""},
		{"no aud", []byte("not read"), nil, "?nonce=x", 400, false, ""},
		{"maxAge negative", []byte("not read"), nil, q + "&maxAge=-1", 400, false, ""},
		{"maxAge over a day", []byte("not read"), nil, q + "&maxAge=86401", 400, false, ""},
		{"maxAge a duration", []byte("not read"), nil, q + "&maxAge=5m", 400, false, ""},
		{"bad at", []byte("not read"), nil, "?at=noon&aud=x&nonce=y", 400, false, ""},
	}
	runVerifyCases(t, srv.URL+"/v1/verify/presentation", tests, func(t *testing.T, res *verifier.Result) {
		if (res.HolderKey != "") != res.Verified || len(res.Checks) != len(verifier.PresentationCheckNames()) {
			t.Errorf("holder key %q and %d checks in a result verified %v", res.HolderKey, len(res.Checks), res.Verified)
		}
	})
}

func assertProblem(t *testing.T, resp *http.Response, body []byte, status int) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body: %v: %s", err, body)
	}
	if p.Status != status || p.Type == "" || p.Title == "" || p.Detail == "" {
		t.Errorf("problem %+v", p)
	}
}

func TestHTTPRoutes(t *testing.T) {
	srv, _ := newServer(t, verifierhttp.Config{})
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("healthz: %d %s", resp.StatusCode, body)
	}
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/verify", 405},
		{"DELETE", "/healthz", 405},
		{"GET", "/nope", 404},
		{"POST", "/v1/verify/extra", 404},
		{"GET", "/v1/verify/presentation", 405},
		{"POST", "/v1/verify/presentation/x", 404},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
			continue
		}
		assertProblem(t, resp, body, tt.status)
		if tt.status == 405 && resp.Header.Get("Allow") == "" {
			t.Errorf("%s %s: no Allow header", tt.method, tt.path)
		}
	}
}

func TestHTTPRateLimit(t *testing.T) {
	srv, bundles := newServer(t, verifierhttp.Config{RatePerClient: 1})
	limited := 0
	for range 10 {
		resp, body := post(t, srv.URL+"/v1/verify", bundles["valid_minimal"], nil)
		if resp.StatusCode == http.StatusTooManyRequests {
			limited++
			assertProblem(t, resp, body, 429)
			if resp.Header.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
		}
	}
	// A burst of 2 then 1/s: most of ten quick requests are refused.
	if limited < 5 {
		t.Errorf("%d of 10 requests rate-limited, want most", limited)
	}
}
