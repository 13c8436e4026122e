package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
)

// TestServeAnswersEveryRefusalWithProblemDetails runs passport-serve on
// loopback and checks the refusals net/http and the body reader make:
// oversized headers (431), an unparseable request (400) and a body that
// stalls (408), each as problem details, before the connection closes.
func TestServeAnswersEveryRefusalWithProblemDetails(t *testing.T) {
	trustJSON, _, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	trust := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(trust, trustJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := startServe(t, "--trust", trust, "--body-timeout", "200ms", "--max-header-bytes", "2048").Addr

	// The head bound is exact: 2048 bytes are read, 2049 refused.
	if res, body := clitest.Exchange(t, addr, clitest.Head("GET /healthz HTTP/1.1", 2048)); res.StatusCode != 200 {
		t.Fatalf("a head of exactly --max-header-bytes: %s %s", res.Status, body)
	}
	res, body := clitest.Exchange(t, addr, clitest.Head("GET /healthz HTTP/1.1", 2049))
	clitest.WantProblem(t, res, body, 431, "header_too_large")

	// A bundle over the bound by its Content-Length is refused before the
	// client is asked to send it.
	res, body = clitest.Exchange(t, addr, fmt.Sprintf("POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", passport.MaxBundleSize+1))
	clitest.WantProblem(t, res, body, 413, "body_too_large")

	res, body = clitest.Exchange(t, addr, "GET /healthz HTTP/1.1\r\n\r\n") // no Host
	clitest.WantProblem(t, res, body, 400, "invalid_request")

	res, body = clitest.Exchange(t, addr, "POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jws\":")
	clitest.WantProblem(t, res, body, 408, "request_timeout")
	if !res.Close {
		t.Error("a 408 keeps the connection open")
	}

	res, body = clitest.Exchange(t, addr, "DELETE /v1/verify HTTP/1.1\r\nHost: x\r\n\r\n")
	clitest.WantProblem(t, res, body, 405, "method_not_allowed")
}

// TestServeHelpMatchesDocs checks that --help and docs/verifying.md state
// the same limits and timeouts.
func TestServeHelpMatchesDocs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code, out, errs := run(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr), stdout.String(), stderr.String()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	section := clitest.Section(t, "../../docs/verifying.md", "### Limits and timeouts of `passport-serve`")
	clitest.CheckHelpMatchesDoc(t, out, section, []string{
		"--rate", "--max-concurrent", "--read-header-timeout", "--body-timeout", "--write-timeout", "--idle-timeout", "--max-header-bytes",
		"--status-timeout"})
}
