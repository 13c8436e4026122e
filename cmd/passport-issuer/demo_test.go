package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/verifier"
)

// TestREADMEQuickStart keeps the README's quick start truthful: its first
// commands run the demo and then the tests; the passport commands it shows
// are those demo prints; the identifiers it and docs/demo.md name are those
// of the world demo builds; and docs/demo.md quotes demo's output. The
// commands themselves run in internal/docstest and testdata/script/demo.txtar.
func TestREADMEQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tour, err := os.ReadFile("../../docs/demo.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := clitest.CodeBlocks(string(readme))
	var cmds []string
	for _, b := range blocks {
		if b.Lang == "sh" {
			cmds = append(cmds, b.Lines...)
		}
	}
	if len(cmds) < 3 || cmds[0] != "go run ./cmd/passport-issuer demo" || cmds[1] != "go test ./..." || cmds[2] != "go test -short ./..." {
		t.Fatalf("the quick start's first commands are %q, want the demo and then the tests", cmds[:min(3, len(cmds))])
	}

	// The demo runs in a temporary directory, named in full; the output
	// is compared as if it ran in the working directory.
	dir := t.TempDir() + string(os.PathSeparator)
	var stdout, stderr bytes.Buffer
	args := []string{"--log-level", "warn", "demo", "--no-serve", "--out", dir + "demo"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("demo exited %d: %s", code, stderr.String())
	}
	out := strings.ReplaceAll(stdout.String(), dir, "")

	printed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(l, "  go run ./cmd/passport "); ok {
			printed["go run ./cmd/passport "+c] = true
		}
	}
	if len(printed) != 4 {
		t.Fatalf("demo printed %d passport commands, want verify, recompute, present and verify the presentation:\n%s", len(printed), out)
	}
	for c := range printed {
		if !slices.Contains(cmds, c) {
			t.Errorf("the README does not show the command demo prints: %s", c)
		}
	}
	for _, c := range cmds {
		if strings.HasPrefix(c, "go run ./cmd/passport ") && !printed[c] {
			t.Errorf("the README shows a passport command demo does not print: %s", c)
		}
	}
	for _, doc := range []string{string(readme), string(tour)} {
		for _, id := range regexp.MustCompile(`agt_[a-z2-7]{26}`).FindAllString(doc, -1) {
			if !strings.Contains(out, id) {
				t.Errorf("the docs name %s, which the demo world does not have", id)
			}
		}
	}
	for _, l := range []string{"Built the demo world (seed 1) in demo/passportkit.db: 9 operators, 12 agents, 17 memories, 91 steps",
		"6 praise attempts by the same-owner ring were refused at submission"} {
		if !strings.Contains(out, l) || !bytes.Contains(tour, []byte(l)) {
			t.Errorf("demo and docs/demo.md should both say %q", l)
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
	// As docs/demo.md does: the hash from the bundle's snapshot.
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
	checkKnowledgeSearch(t, base, dir+"demo", w)

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

// checkKnowledgeSearch searches as docs/demo.md does, with the reader's API
// key demo wrote under out (mode 0600): the digest comes first, a
// knowledge entry.
func checkKnowledgeSearch(t *testing.T, base, out string, w *demoworld.World) {
	t.Helper()
	path := filepath.Join(out, "agent.key")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, info.Mode().Perm())
	}
	key, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("GET", base+"/api/memories/search?q="+url.QueryEscape(demoworld.KnowledgeQuery), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(key)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Results []struct {
			ID        string `json:"id"`
			Kind      string `json:"kind"`
			Knowledge bool   `json:"knowledge"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("search as the reader: %s %v", resp.Status, err)
	}
	digest := slices.IndexFunc(w.Memories, func(m demoworld.Memory) bool { return m.Digest })
	if len(page.Results) == 0 || page.Results[0].ID != string(w.MemoryID(digest)) || page.Results[0].Kind != "digest" || !page.Results[0].Knowledge {
		t.Errorf("the reader's search for %q does not show the digest %s first, as a knowledge entry: %+v", demoworld.KnowledgeQuery, w.MemoryID(digest), page.Results)
	}
}

// TestDemoBusyPort: a demo whose address is taken fails before it writes or
// prints anything: the files and the database of an earlier run are left
// as they were, and a new --out directory is not even made.
func TestDemoBusyPort(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	out := filepath.Join(dir, "demo")
	var errs bytes.Buffer
	if code := run(context.Background(), []string{"--log-level", "warn", "demo", "--no-serve", "--out", out}, io.Discard, &errs); code != 0 {
		t.Fatalf("demo exited %d: %s", code, errs.String())
	}
	before := tree(t, out)
	if len(before) < 7 {
		t.Fatalf("the first demo left %d files under %s", len(before), out)
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, dest := range []string{out, filepath.Join(dir, "fresh")} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"demo", "--addr", busy.Addr().String(), "--out", dest}, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "address already in use") || !strings.Contains(stderr.String(), "nothing was written") {
			t.Errorf("demo on a busy port: exit %d, stderr %q", code, stderr.String())
		}
		if stdout.Len() > 0 {
			t.Errorf("demo on a busy port printed %q", stdout.String())
		}
	}
	if after := tree(t, out); !maps.Equal(before, after) {
		t.Errorf("demo on a busy port changed %s:\nbefore %v\nafter  %v", out, before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, "fresh")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("demo on a busy port made its --out directory: %v", err)
	}
}

// tree returns every file under dir with its mode, time and contents' hash.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[path] = fmt.Sprintf("%v %s %x", info.Mode(), info.ModTime().Format(time.RFC3339Nano), sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
