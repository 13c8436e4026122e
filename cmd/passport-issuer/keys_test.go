package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/verifier"
)

// runCmd runs one command and returns its exit code, stdout and stderr.
func runCmd(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// server is a running `serve`.
type server struct {
	base string
	logs *clitest.Buffer
	stop func() int
}

// startServe runs serve with args until the returned stop is called.
func startServe(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &clitest.Buffer{}
	exit := make(chan int, 1)
	go func() { exit <- run(ctx, append(args, "--addr", "127.0.0.1:0"), io.Discard, logs) }()
	urlRE := regexp.MustCompile(`msg=serving url=(http://127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(logs.String()); m != nil {
			stopped := false
			s := &server{base: m[1], logs: logs, stop: func() int {
				if stopped {
					return 0
				}
				stopped = true
				cancel()
				return <-exit
			}}
			t.Cleanup(func() { s.stop() })
			return s
		}
		select {
		case code := <-exit:
			cancel()
			t.Fatalf("serve exited %d: %s", code, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not start: %s", logs.String())
		}
	}
}

func fetch(t *testing.T, url, etag string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK && res.Header.Get("ETag") == "" {
		t.Fatalf("%s: no ETag", url)
	}
	return res.StatusCode, b
}

// TestServeKeys drives the key life of a deployment through the commands:
// production refuses without a key and changes nothing; development creates
// one and says so; the served trust file is what export-trust writes;
// exposed key files and unknown kids are refused.
func TestServeKeys(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "issuer.db")
	dir := filepath.Join(tmp, "keys")
	common := []string{"--db", db}
	// keys runs a keys command; the key directory goes before the args,
	// which may end their flags with "--" (a kid may begin with "-").
	keys := func(args ...string) (int, string, string) {
		return runCmd(append(append(append([]string{}, common...), "keys", "--keys", dir), args...)...)
	}
	if code, _, errs := runCmd("--db", db, "migrate"); code != 0 {
		t.Fatal(errs)
	}

	// Production without a key: a clear refusal, nothing created.
	code, _, errs := runCmd("--db", db, "serve", "--env", "production", "--keys", dir, "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errs, "refusing to start in production") || !strings.Contains(errs, "no active signing key") || !strings.Contains(errs, "keys rotate") {
		t.Fatalf("production without a key: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("production refusal created the key directory: %v", err)
	}
	if code, out, errs := keys("list", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("keys after the refusal: %d %s %s", code, out, errs)
	}
	if code, _, errs := keys("export-trust"); code != 1 || !strings.Contains(errs, "no published keys") {
		t.Fatalf("export-trust with no key: %d %s", code, errs)
	}

	// Development creates the first key and says where.
	s := startServe(t, "--db", db, "serve", "--keys", dir)
	m := regexp.MustCompile(`so a new key was created and made active" alg=EdDSA kid=(\S{43}) path=(\S+)`).FindStringSubmatch(s.logs.String())
	if m == nil {
		t.Fatalf("development start did not report a new key: %s", s.logs.String())
	}
	kid, path := m[1], m[2]
	if path != filepath.Join(dir, kid+".jwk") {
		t.Fatalf("key reported at %s, want %s", path, filepath.Join(dir, kid+".jwk"))
	}
	status, served := fetch(t, s.base+"/.well-known/passport-trust.json", "")
	_, exported, _ := keys("export-trust")
	if status != 200 || string(served) != exported {
		t.Fatalf("served trust file (%d) differs from export-trust:\n%s\n%s", status, served, exported)
	}
	trust, err := verifier.ParseTrust(served)
	if err != nil || trust.Issuer != defaultIssuer || len(trust.Keys) != 1 || trust.Keys[0].Key.KeyID() != kid {
		t.Fatalf("served trust %+v: %v", trust, err)
	}
	if status, jwks := fetch(t, s.base+"/.well-known/jwks.json", ""); status != 200 || !strings.Contains(string(jwks), kid) || strings.Contains(string(jwks), `"d"`) {
		t.Fatalf("jwks: %d %s", status, jwks)
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// A second development start finds the key and creates nothing.
	s = startServe(t, "--db", db, "serve", "--keys", dir)
	if strings.Contains(s.logs.String(), "was created") {
		t.Fatalf("second start created a key: %s", s.logs.String())
	}
	s.stop()

	// export-trust to a file; rotation; the old key stays published.
	trustFile := filepath.Join(tmp, "trust.json")
	if code, _, errs := keys("export-trust", "-o", trustFile); code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(trustFile); string(b) != exported {
		t.Fatalf("export-trust -o wrote %s", b)
	}
	code, out, errs := keys("rotate", "--alg", "ES256")
	if code != 0 || !strings.Contains(out, "retired at") || !strings.Contains(out, kid) {
		t.Fatalf("rotate: %d %s %s", code, out, errs)
	}
	_, exported, _ = keys("export-trust")
	if trust, err := verifier.ParseTrust([]byte(exported)); err != nil || len(trust.Keys) != 2 {
		t.Fatalf("trust after rotation: %s %v", exported, err)
	}

	// Unknown kids and exposed files: refused, nothing changed.
	_, before, _ := keys("list", "--json")
	if code, _, errs := keys("retire", "--", "nosuchkid"); code != 1 || !strings.Contains(errs, `no signing key has kid "nosuchkid"`) {
		t.Fatalf("retire unknown: %d %s", code, errs)
	}
	if code, _, errs := keys("rotate", "--", kid); code != 1 || !strings.Contains(errs, "retired") {
		t.Fatalf("reactivating a retired key: %d %s", code, errs)
	}
	var listed []struct {
		KID    string `json:"kid"`
		Status string `json:"status"`
	}
	json.Unmarshal([]byte(before), &listed)
	active := ""
	for _, k := range listed {
		if k.Status == "active" {
			active = k.KID
		}
	}
	activeFile := filepath.Join(dir, active+".jwk")
	if err := os.Chmod(activeFile, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmd("--db", db, "serve", "--env", "production", "--keys", dir, "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errs, "chmod 600 "+activeFile) {
		t.Fatalf("production with an exposed key file: %d %s", code, errs)
	}
	code, _, errs = runCmd("--db", db, "serve", "--keys", dir, "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errs, "chmod 600 "+activeFile) {
		t.Fatalf("development with an exposed key file: %d %s", code, errs)
	}
	os.Chmod(activeFile, 0o600)
	if _, after, _ := keys("list", "--json"); after != before {
		t.Fatalf("refusals changed the keys:\n%s\n%s", before, after)
	}
	s = startServe(t, "--db", db, "serve", "--env", "production", "--keys", dir)
	s.stop()
	if !strings.Contains(s.logs.String(), "development default") {
		t.Fatalf("production with the default issuer identifier did not warn: %s", s.logs.String())
	}
}
