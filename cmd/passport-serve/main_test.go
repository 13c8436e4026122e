package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

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
	ctx, cancel := context.WithCancel(context.Background())
	var stderr clitest.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--trust", trust, "--addr", "127.0.0.1:0",
			"--body-timeout", "200ms", "--max-header-bytes", "2048"}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	defer func() {
		cancel()
		if code := <-exit; code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	}()
	addrRE := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", stderr.String())
		}
	}

	// The head bound is exact: 2048 bytes are read, 2049 refused.
	if res, body := clitest.Exchange(t, addr, clitest.Head("GET /healthz HTTP/1.1", 2048)); res.StatusCode != 200 {
		t.Fatalf("a head of exactly --max-header-bytes: %s %s", res.Status, body)
	}
	res, body := clitest.Exchange(t, addr, clitest.Head("GET /healthz HTTP/1.1", 2049))
	clitest.WantProblem(t, res, body, 431, "header_too_large")

	// A bundle over the bound by its Content-Length is refused before the
	// client is asked to send it.
	res, body = clitest.Exchange(t, addr, fmt.Sprintf("POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", passport.MaxBundleSize+1))
	clitest.WantProblem(t, res, body, 413, "body_too_large")

	res, body = clitest.Exchange(t, addr, "GET /healthz HTTP/1.1\r\n\r\n") // no Host
	clitest.WantProblem(t, res, body, 400, "invalid_request")

	res, body = clitest.Exchange(t, addr, "POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"jws\":")
	clitest.WantProblem(t, res, body, 408, "request_timeout")
	if !res.Close {
		t.Error("a 408 keeps the connection open")
	}

	res, body = clitest.Exchange(t, addr, "DELETE /v1/verify HTTP/1.1\r\nHost: x\r\n\r\n")
	clitest.WantProblem(t, res, body, 405, "method_not_allowed")
}

// TestServeHelpMatchesREADME checks that --help and the README state the
// same limits and timeouts.
func TestServeHelpMatchesREADME(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code, out, errs := run(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr), stdout.String(), stderr.String()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	section := clitest.READMESection(t, "../../README.md", "#### Limits and timeouts of `passport-serve`")
	clitest.CheckHelpMatchesREADME(t, out, section, []string{
		"--rate", "--max-concurrent", "--read-header-timeout", "--body-timeout", "--write-timeout", "--idle-timeout", "--max-header-bytes",
		"--status-timeout"})
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"passport-serve": main})
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestReadmeCommand runs the `passport-serve` command lines of README.md, as
// written but on a free port, each in the background with a trust file of
// that name, until it answers /healthz, and then stops it.
func TestReadmeCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	trustJSON, _, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	for line := range strings.Lines(string(readme)) {
		c, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "    passport-serve ")
		if !ok {
			continue
		}
		trust := c[strings.Index(c, "--trust ")+len("--trust "):]
		trust, _, _ = strings.Cut(trust, " ")
		readmeAddr := c[strings.Index(c, "--addr ")+len("--addr "):]
		readmeAddr, _, _ = strings.Cut(readmeAddr, " ")
		// The command as written, on a port that is free now: the README's
		// own may be taken by a server the reader started.
		addr := freeAddr(t)
		c = strings.Replace(c, "--addr "+readmeAddr, "--addr "+addr, 1)
		fmt.Fprintf(&script, "cp trust.json %s\nexec passport-serve %s &serve&\nhealthy http://%s/healthz\nkill -INT serve\nwait serve\n", trust, c, addr)
	}
	if script.Len() == 0 {
		t.Fatal("no passport-serve command in README.md")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), []byte(script.String()+"-- trust.json --\n"+string(trustJSON)), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// healthy waits up to ten seconds for a 200 from a URL.
			"healthy": func(ts *testscript.TestScript, neg bool, args []string) {
				deadline := time.Now().Add(10 * time.Second)
				for {
					resp, err := http.Get(args[0])
					if err == nil {
						resp.Body.Close()
						if resp.StatusCode == http.StatusOK {
							return
						}
					}
					if time.Now().After(deadline) {
						ts.Fatalf("%s never answered 200: %v", args[0], err)
					}
					time.Sleep(50 * time.Millisecond)
				}
			},
		},
	})
}
