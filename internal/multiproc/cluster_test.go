package multiproc

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// binDir holds the passport-issuer binary, built once per test binary.
var (
	binDir   string
	buildBin sync.Once
	binPath  string
	buildErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "multiproc-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// issuerBinary returns the path of passport-issuer, built on first use.
func issuerBinary(t testing.TB) string {
	t.Helper()
	buildBin.Do(func() {
		binPath = filepath.Join(binDir, "passport-issuer")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/remnant/passportkit/cmd/passport-issuer").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build passport-issuer: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// baseURL returns the PostgreSQL URL the tests may create databases
// through, skipping under -short and where none is set (failing where
// storetest.EnvRequired asks for PostgreSQL).
func baseURL(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: several issuer processes over PostgreSQL are tested in the full lane")
	}
	u := os.Getenv(storetest.EnvURL)
	if u == "" {
		if storetest.Required() {
			t.Fatalf("%s is not set, and %s requires the PostgreSQL tests", storetest.EnvURL, storetest.EnvRequired)
		}
		t.Skipf("%s is not set", storetest.EnvURL)
	}
	return u
}

// cluster is a database of its own, migrated, with an active signing key,
// and the issuer processes serving it.
type cluster struct {
	t      testing.TB
	bin    string
	dbURL  string
	keys   string
	sql    *sql.DB // the test's own connection to the database
	procs  []*proc
	client *http.Client
	// serveFlags are added to the flags of the serve processes started
	// from now on.
	serveFlags []string
}

// newCluster creates a fresh database, migrates it and activates a signing
// key with the command's own subcommands; the database is dropped when t
// ends, after every process started on it has stopped.
func newCluster(t testing.TB) *cluster {
	t.Helper()
	base := baseURL(t)
	bin := issuerBinary(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", storetest.EnvURL, err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "passportkit_multiproc_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	c := &cluster{t: t, bin: bin, dbURL: u.String(), keys: filepath.Join(t.TempDir(), "keys"),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}}
	if c.sql, err = sql.Open("pgx", c.dbURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.sql.Close() })
	t.Cleanup(c.stopAll)
	c.command(t, "migrate")
	c.command(t, "keys", "--keys", c.keys, "rotate")
	return c
}

// command runs passport-issuer with args on the cluster's database and
// returns its standard output; it fails t when the command fails.
func (c *cluster) command(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(c.bin, append([]string{"--db", c.dbURL, "--log-level", "warn"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("passport-issuer %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// agent is an agent created by `agents create`.
type agent struct {
	ID  string `json:"publicId"`
	Key string `json:"apiKey"`
}

// createAgent creates an agent named name with `agents create`.
func (c *cluster) createAgent(t testing.TB, name string) agent {
	t.Helper()
	var a agent
	if err := json.Unmarshal([]byte(c.command(t, "agents", "create", "--name", name, "--json")), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// proc is one running `passport-issuer serve`.
type proc struct {
	cmd  *exec.Cmd
	url  string
	logs clitest.Buffer
	done chan error
}

// start starts n more serve processes, each on a free loopback port, and
// waits until each says where it serves.
func (c *cluster) start(n int) {
	c.t.Helper()
	for range n {
		c.procs = append(c.procs, c.startOne())
	}
}

func (c *cluster) startOne() *proc {
	c.t.Helper()
	p := &proc{done: make(chan error, 1)}
	p.cmd = exec.Command(c.bin, append([]string{"--db", c.dbURL, "--log-format", "json", "serve", "--env", "production",
		"--addr", "127.0.0.1:0", "--metrics-addr", "off", "--keys", c.keys, "--rate", "1000000", "--burst", "1000000"}, c.serveFlags...)...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	serving := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			p.logs.Write(append(line, '\n'))
			var l struct{ Msg, URL string }
			if json.Unmarshal(line, &l) == nil && l.Msg == "serving" {
				serving <- l.URL
			}
		}
		io.Copy(io.Discard, stderr)
		p.done <- p.cmd.Wait()
	}()
	select {
	case p.url = <-serving:
	case err := <-p.done:
		c.t.Fatalf("serve exited before serving: %v\n%s", err, p.logs.String())
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		c.t.Fatalf("serve did not start in 60 s:\n%s", p.logs.String())
	}
	return p
}

// stopAll stops every process with SIGTERM and waits for it, killing one
// that does not stop in time, and reports an unclean exit.
func (c *cluster) stopAll() {
	for _, p := range c.procs {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range c.procs {
		select {
		case err := <-p.done:
			if err != nil {
				c.t.Errorf("serve %s exited: %v\n%s", p.url, err, p.logs.String())
			}
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
			c.t.Errorf("serve %s did not stop in 30 s:\n%s", p.url, p.logs.String())
		}
	}
	c.procs = nil
}

// response is an HTTP answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request to process i; key, when set, is sent as the bearer
// token and body as JSON.
func (c *cluster) do(ctx context.Context, i int, method, path, key, body string) (response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.procs[i].url+path, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: res.StatusCode, header: res.Header, body: b}, nil
}

// call is do expecting a success, for t's own goroutine.
func (c *cluster) call(t testing.TB, i int, method, path, key, body string) []byte {
	t.Helper()
	r, err := c.do(context.Background(), i, method, path, key, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != http.StatusOK && r.status != http.StatusCreated {
		t.Fatalf("%s %s on process %d: %d %s", method, path, i, r.status, r.body)
	}
	return r.body
}

// publish publishes a memory as key through process i and returns its id.
func (c *cluster) publish(t testing.TB, i int, key, body string) string {
	t.Helper()
	var m struct{ ID string }
	if err := json.Unmarshal(c.call(t, i, http.MethodPost, "/api/memories", key, body), &m); err != nil || m.ID == "" {
		t.Fatalf("publish: %v", err)
	}
	return m.ID
}

// issued is what a served passport says of itself.
type issued struct {
	kid       string
	published int // publicActivity.memoriesPublished
}

// readPassport reads the passport of agent id through process i; an
// answer other than 200 is a *statusError.
func (c *cluster) readPassport(ctx context.Context, i int, id string) (issued, error) {
	r, err := c.do(ctx, i, http.MethodGet, "/api/public/agents/"+id+"/passport", "", "")
	if err != nil {
		return issued{}, err
	}
	if r.status != http.StatusOK {
		return issued{}, &statusError{r.status, string(r.body)}
	}
	return parseIssued(r.body)
}

// statusError is an answer other than 200 OK.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d %s", e.status, e.body) }

// parseIssued reads the signing key and the publication count of a bundle,
// unverified.
func parseIssued(b []byte) (issued, error) {
	bundle, err := passport.ParseBundleUnverified(b)
	if err != nil {
		return issued{}, err
	}
	_, p, err := bundle.SnapshotUnverified()
	if err != nil {
		return issued{}, err
	}
	head, _, _ := strings.Cut(bundle.Credential, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return issued{}, err
	}
	var h struct{ KID string }
	if err := json.Unmarshal(raw, &h); err != nil {
		return issued{}, err
	}
	return issued{kid: h.KID, published: p.PublicActivity.MemoriesPublished}, nil
}
