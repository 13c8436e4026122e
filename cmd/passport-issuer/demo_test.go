package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/verifier"
)

// TestREADMEQuickStart keeps the README's quick start truthful: its first
// command runs the demo and its second the tests; the verify commands it
// shows are those demo prints; and the identifiers it names are those of
// the world demo builds. The commands themselves run in
// testdata/script/demo.txtar.
func TestREADMEQuickStart(t *testing.T) {
	section := clitest.READMESection(t, "../../README.md", "## Quick start")
	var cmds []string
	for _, l := range strings.Split(section, "\n") {
		if c, ok := strings.CutPrefix(l, "    "); ok && !strings.HasPrefix(c, " ") {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 2 || cmds[0] != "go run ./cmd/passport-issuer demo" || cmds[1] != "go test ./..." {
		t.Fatalf("the quick start's first commands are %q, want the demo and then the tests", cmds[:min(2, len(cmds))])
	}

	// The demo runs in a temporary directory, named in full; the output
	// is compared as if it ran in the working directory.
	dir := t.TempDir() + string(os.PathSeparator)
	var stdout, stderr bytes.Buffer
	args := []string{"--log-level", "warn", "--db", dir + "passportkit.db", "demo", "--no-serve",
		"--keys", dir + "passportkit-keys", "--out", dir + "demo"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("demo exited %d: %s", code, stderr.String())
	}
	out := strings.ReplaceAll(stdout.String(), dir, "")

	printed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(l, "  go run ./cmd/passport verify"); ok {
			printed["go run ./cmd/passport verify"+c] = true
		}
	}
	if len(printed) != 2 {
		t.Fatalf("demo printed %d verify commands:\n%s", len(printed), out)
	}
	for c := range printed {
		if !strings.Contains(section, "\n    "+c+"\n") {
			t.Errorf("the README does not show the command demo prints: %s", c)
		}
	}
	for _, c := range cmds[2:] {
		if strings.HasPrefix(c, "go run ./cmd/passport verify") && !printed[c] {
			t.Errorf("the README shows a verify command demo does not print: %s", c)
		}
	}
	for _, id := range regexp.MustCompile(`agt_[a-z2-7]{26}`).FindAllString(section, -1) {
		if !strings.Contains(out, id) {
			t.Errorf("the README names %s, which the demo world does not have", id)
		}
	}
	for _, l := range []string{"Built the demo world (seed 1) in passportkit.db: 9 operators, 12 agents, 14 memories, 80 steps",
		"6 praise attempts by the same-owner ring were refused at submission"} {
		if !strings.Contains(out, l) || !strings.Contains(section, l) {
			t.Errorf("the README and demo should both say %q", l)
		}
	}
}

// TestDemoServes runs demo as the quick start does, serving afterwards: the
// main agent's passport is served over HTTP, verifies against the served
// trust file, and its evidence file is served by passportHash; the
// discovery page ranks the main agent.
func TestDemoServes(t *testing.T) {
	dir := t.TempDir() + string(os.PathSeparator)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs clitest.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--db", dir + "passportkit.db", "demo", "--addr", "127.0.0.1:0",
			"--keys", dir + "passportkit-keys", "--out", dir + "demo"}, io.Discard, &logs)
	}()
	urlRE := regexp.MustCompile(`msg=serving url=(http://127\.0\.0\.1:\d+)`)
	var base string
	for deadline := time.Now().Add(60 * time.Second); base == ""; {
		if m := urlRE.FindStringSubmatch(logs.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("demo did not start serving: %s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s: %s", path, resp.Status, b)
		}
		return resp, b
	}

	w := demoworld.Generate(demoworld.DefaultSeed)
	main := string(w.AgentID(w.Main()))
	_, trustFile := get("/.well-known/passport-trust.json")
	resp, bundle := get("/api/public/agents/" + main + "/passport")
	trust, err := verifier.ParseTrust(trustFile)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify(ctx, bundle, verifier.ForSubject(main))
	if err != nil || !res.Verified {
		t.Fatalf("the served passport does not verify: %v %+v", err, res)
	}
	// As the README does: the hash from the bundle's snapshot.
	var b struct {
		Snapshot struct {
			PassportHash string `json:"passportHash"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal(bundle, &b); err != nil {
		t.Fatal(err)
	}
	hash := b.Snapshot.PassportHash
	if etag := strings.Trim(resp.Header.Get("ETag"), `"`); !strings.HasSuffix(etag, hash) {
		t.Errorf("ETag %s, passportHash %s", etag, hash)
	}
	_, file := get("/api/public/agents/" + main + "/passport/evidence?passportHash=" + url.QueryEscape(hash))
	if !bytes.Contains(file, []byte(res.EvidenceRoot)) {
		t.Errorf("the served evidence file does not name the passport's evidenceRoot %s", res.EvidenceRoot)
	}

	// The discovery page is served; the background indexer ranks the
	// main agent on its contested skill once its first sweep is done.
	find := "/agents?skill=" + url.QueryEscape(demoworld.SkillContested)
	for deadline := time.Now().Add(60 * time.Second); ; {
		_, page := get(find)
		if bytes.Contains(page, []byte(`<li data-id="`+main+`">`)) && bytes.Contains(page, []byte(`<span class="flag contested">Contested</span>`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not rank the main agent: %s", find, page)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, home := get("/"); !bytes.Contains(home, []byte(`<a href="/agents"`)) {
		t.Error("the navigation does not link the discovery page")
	}

	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("demo exited %d: %s", code, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo did not stop")
	}
}
