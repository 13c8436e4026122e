package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
)

// getBody fetches url and returns its status and body.
func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// serveArgs are the arguments of serve on a fresh SQLite file.
func serveArgs(t *testing.T, flags ...string) []string {
	tmp := t.TempDir()
	return append([]string{"--db", filepath.Join(tmp, "issuer.db"), "serve", "--keys", filepath.Join(tmp, "keys")}, flags...)
}

var metricsURLRE = regexp.MustCompile(`msg="serving metrics" url=(http://127\.0\.0\.1:\d+/metrics)`)

// TestServeMetricsAddress: by default /metrics is served with the API; with
// --metrics-addr it is served there alone (and the API answers 404); with
// off, nowhere. Request logs carry the route pattern.
func TestServeMetricsAddress(t *testing.T) {
	t.Parallel()
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, serveArgs(t)...)
		getBody(t, s.base+"/healthz")
		status, body := getBody(t, s.base+"/metrics")
		if status != 200 || !strings.Contains(body, `passportkit_http_requests_total{method="GET",route="/healthz",status="200"} 1`) {
			t.Fatalf("/metrics: %d %s", status, body)
		}
		if !strings.Contains(s.logs.String(), "msg=request ") || !strings.Contains(s.logs.String(), "route=/healthz status=200") {
			t.Fatalf("no request line in the logs: %s", s.logs.String())
		}
	})
	t.Run("separate", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, serveArgs(t, "--metrics-addr", "127.0.0.1:0")...)
		m := metricsURLRE.FindStringSubmatch(s.logs.String())
		if m == nil {
			t.Fatalf("the metrics address was not logged: %s", s.logs.String())
		}
		getBody(t, s.base+"/healthz")
		if status, body := getBody(t, s.base+"/metrics"); status != 404 || !strings.Contains(body, `"code":"not_found"`) {
			t.Fatalf("/metrics on the API's address: %d %s", status, body)
		}
		status, body := getBody(t, m[1])
		if status != 200 || !strings.Contains(body, `route="/healthz"`) || !strings.Contains(body, `passportkit_db_open_connections{engine="sqlite"}`) {
			t.Fatalf("%s: %d %s", m[1], status, body)
		}
		if status, body := getBody(t, strings.TrimSuffix(m[1], "/metrics")+"/api/agents/me"); status != 404 || !strings.Contains(body, `"code":"not_found"`) {
			t.Fatalf("the metrics address served another path: %d %s", status, body)
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, serveArgs(t, "--metrics-addr", "off")...)
		if status, _ := getBody(t, s.base+"/metrics"); status != 404 || metricsURLRE.MatchString(s.logs.String()) {
			t.Fatalf("/metrics with off: %d: %s", status, s.logs.String())
		}
	})
}

// TestServeMetricsAddressRefusals: an address that is not one, or the
// API's own, is refused before anything starts (nothing binds the free
// port the kernel names for the API).
func TestServeMetricsAddressRefusals(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	api := l.Addr().String()
	l.Close()
	for _, addr := range []string{"nowhere", api} {
		code, _, errs := runCmd(serveArgs(t, "--addr", api, "--metrics-addr", addr)...)
		if code == 0 || !strings.Contains(errs, "--metrics-addr") {
			t.Errorf("--metrics-addr %s: exit %d: %s", addr, code, errs)
		}
	}
}

// TestJSONLogs: --log-format json writes one JSON object per line, the
// request lines included; only the development notice of a new key is
// plain text.
func TestJSONLogs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs clitest.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--db", filepath.Join(tmp, "x.db"), "--log-format", "json", "serve", "--addr", "127.0.0.1:0", "--keys", filepath.Join(tmp, "keys")}, io.Discard, &logs)
	}()
	urlRE := regexp.MustCompile(`"msg":"serving","url":"(http://127\.0\.0\.1:\d+)"`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; time.Sleep(10 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(logs.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", logs.String())
		}
	}
	getBody(t, base+"/healthz")
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("exit %d: %s", code, logs.String())
	}
	requests := 0
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.HasPrefix(l, "development: ") {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil || v["msg"] == nil {
			t.Fatalf("log line %q is not a JSON record: %v", l, err)
		}
		if v["msg"] == "request" && v["route"] == "/healthz" {
			requests++
		}
	}
	if requests != 1 {
		t.Fatalf("%d request lines for /healthz: %s", requests, logs.String())
	}
}
