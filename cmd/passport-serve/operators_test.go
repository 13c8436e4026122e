package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
)

// TestServeForOperators runs passport-serve on loopback with
// --log-format json and checks what its operators see: every request is
// named by X-Request-Id (a sane one of the client's kept, any other
// replaced) and logged in one JSON line under that id; every line the
// command prints is JSON; /healthz and /metrics answer; and a body that
// is not JSON by its media type is refused 415 unsupported_media_type,
// while application/json and the document's own type are read.
func TestServeForOperators(t *testing.T) {
	trustJSON, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	var bundle []byte
	for _, c := range cases {
		if c.Name == "valid_minimal" {
			bundle = c.Bundle
		}
	}
	if bundle == nil {
		t.Fatal("no vector valid_minimal")
	}
	trust := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(trust, trustJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "--trust", trust, "--log-format", "json")
	base, stderr := srv.URL, srv.Logs
	send := func(method, path, contentType, requestID string, body []byte) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if requestID != "" {
			req.Header.Set("X-Request-Id", requestID)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}

	ids := map[string]string{} // request id → route logged for it
	for _, c := range []struct {
		name, contentType, requestID string
		status                       int
	}{
		{"no media type", "", "op-1", 415},
		{"text", "text/plain", "op-2", 415},
		{"a form", "application/x-www-form-urlencoded", "op-3", 415},
		{"JSON in latin-1", "application/json; charset=latin1", "op-4", 415},
		{"a presentation's type", passport.PresentationMediaType, "op-5", 415},
		{"JSON", "application/json", "op-6", 200},
		{"JSON, utf-8", "application/json; charset=UTF-8", "op-7", 200},
		{"the bundle's type", passport.MediaType, "op:8.a_b", 200},
		{"an id with a space", "application/json", "op 9", 200},
		{"an id too long", "application/json", strings.Repeat("x", 65), 200},
	} {
		res, body := send("POST", "/v1/verify", c.contentType, c.requestID, bundle)
		if c.status == 415 {
			clitest.WantProblem(t, res, body, 415, "unsupported_media_type")
		} else if res.StatusCode != c.status {
			t.Errorf("%s: %s %s", c.name, res.Status, body)
		}
		id := res.Header.Get("X-Request-Id")
		sane := !strings.ContainsAny(c.requestID, " ") && len(c.requestID) <= 64
		if sane && id != c.requestID || !sane && (id == c.requestID || !regexp.MustCompile(`^[a-z2-7]{26}$`).MatchString(id)) {
			t.Errorf("%s: X-Request-Id %q for %q", c.name, id, c.requestID)
		}
		ids[id] = "/v1/verify"
	}
	res, body := send("GET", "/healthz", "", "", nil)
	if res.StatusCode != 200 || res.Header.Get("X-Request-Id") == "" {
		t.Errorf("/healthz: %s %s", res.Status, body)
	}
	ids[res.Header.Get("X-Request-Id")] = "/healthz"
	res, body = send("GET", "/metrics", "", "", nil)
	if res.StatusCode != 200 {
		t.Fatalf("/metrics: %s %s", res.Status, body)
	}
	for _, series := range []string{
		`passportkit_http_requests_total{method="POST",route="/v1/verify",status="415"} 5`,
		`passportkit_http_requests_total{method="POST",route="/v1/verify",status="200"} 5`,
		`passportkit_http_requests_total{method="GET",route="/healthz",status="200"} 1`,
		`passportkit_http_request_duration_seconds_bucket{method="POST",route="/v1/verify",status="200",le="+Inf"} 5`,
	} {
		if !strings.Contains(string(body), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	// A long answer is coded for a client that asks, as the issuer's are.
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, coding := range []string{"gzip", "zstd", ""} {
		req, _ := http.NewRequest("POST", base+"/v1/verify", bytes.NewReader(bundle))
		req.Header.Set("Content-Type", "application/json")
		if coding != "" {
			req.Header.Set("Accept-Encoding", coding)
		}
		res, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		ids[res.Header.Get("X-Request-Id")] = "/v1/verify"
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != coding || res.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("verification asked in %q: %s, %q, Vary %q, %d bytes", coding, res.Status, res.Header.Get("Content-Encoding"), res.Header.Get("Vary"), n)
		}
	}
	res, _ = send("GET", "/nowhere", "", "", nil)
	ids[res.Header.Get("X-Request-Id")] = "unmatched"

	srv.Stop()
	logged := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	for sc.Scan() {
		var line struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
			Route     string `json:"route"`
			Method    string `json:"method"`
			Status    int    `json:"status"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Errorf("a line that is not JSON: %q", sc.Text())
			continue
		}
		if line.Msg == "request" {
			logged[line.RequestID] = line.Route
			if line.Method == "" || line.Status == 0 {
				t.Errorf("a request line without its method or status: %s", sc.Text())
			}
			if strings.Contains(sc.Text(), "trust") || strings.Contains(sc.Text(), "credential") {
				t.Errorf("a request line showing a body: %s", sc.Text())
			}
		}
	}
	for id, route := range ids {
		if logged[id] != route {
			t.Errorf("request %s: logged on route %q, want %q", id, logged[id], route)
		}
	}
	for _, want := range []string{`"msg":"serving"`, `"msg":"shut down"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %s line:\n%s", want, stderr.String())
		}
	}
}
