package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// recount runs `reputation recount` with args on dsn and returns its exit
// code and standard output.
func recount(t *testing.T, dsn string, args ...string) (int, string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(context.Background(), append([]string{"--db", dsn, "reputation", "recount"}, args...), &out, &errs)
	if errs.Len() > 0 {
		t.Logf("recount %v: %s", args, errs.String())
	}
	return code, out.String()
}

// demoDB builds the demo world in a fresh database on engine and returns
// the database's --db value and the key directory the demo wrote.
func demoDB(t *testing.T, engine store.Engine) (dsn, keys string) {
	t.Helper()
	dsn, dir := storetest.URL(t, engine), t.TempDir()
	keys = filepath.Join(dir, "keys")
	cmd(t, dsn, "demo", "--no-serve", "--out", filepath.Join(dir, "demo"), "--keys", keys)
	return dsn, keys
}

// TestRecountCheckReportsDrift: on the untouched demo world `reputation
// recount --check` exits 0; after writes that bypassed the counters it
// prints one row per agent and counter that differ, stored against
// counted, and exits 1; a recount corrects them and the check passes
// again. On each engine.
func TestRecountCheckReportsDrift(t *testing.T) {
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dsn, _ := demoDB(t, engine)
			if code, out := recount(t, dsn, "--check"); code != 0 || out != "activity counters match history\n" {
				t.Fatalf("check on the demo world: exit %d\n%s", code, out)
			}

			w := demoworld.Generate(demoworld.DefaultSeed)
			main, reader := w.AgentID(w.Main()), w.AgentID(w.OfRole(demoworld.RoleEvaluator)[0])
			db, err := store.Open(context.Background(), dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			x := db.UnsafeSQL()
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`UPDATE agent_activity_counters SET memories_published = memories_published + 2
					WHERE agent_id = (SELECT id FROM agents WHERE public_id = ?)`, []any{main}},
				{`INSERT INTO retrievals (agent_id, memory_id, created_at)
					SELECT a.id, m.id, m.created_at FROM agents a, memories m WHERE a.public_id = ? AND m.public_id = ?`,
					[]any{reader, w.MemoryID(0)}},
			} {
				if _, err := x.Exec(x.Rebind(q.sql), q.args...); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()

			code, out := recount(t, dsn, "--check")
			if code != 1 {
				t.Fatalf("check after drift: exit %d, want 1\n%s", code, out)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 4 || !regexp.MustCompile(`^agent +counter +stored +counted$`).MatchString(lines[0]) ||
				lines[3] != "the activity counters of 2 agents differ from history; `passport-issuer reputation recount` corrects them" {
				t.Fatalf("check after drift:\n%s", out)
			}
			rows := driftRows(t, lines[1:3])
			if d := rows[string(main)+" memoriesPublished"]; d[0] != d[1]+2 {
				t.Errorf("%s memoriesPublished: stored %d, counted %d; want stored 2 above counted\n%s", main, d[0], d[1], out)
			}
			if d := rows[string(reader)+" retrievals"]; d[1] != d[0]+1 {
				t.Errorf("%s retrievals: stored %d, counted %d; want counted 1 above stored\n%s", reader, d[0], d[1], out)
			}
			column := regexp.MustCompile(`^\S+ +\S+ +`)
			for _, l := range lines[1:3] {
				if len(column.FindString(l)) != strings.Index(lines[0], "stored") {
					t.Errorf("the stored column is not aligned:\n%s", out)
				}
			}

			if code, out := recount(t, dsn); code != 0 || !strings.HasSuffix(out, "corrected the activity counters of 2 agents\n") {
				t.Fatalf("recount: exit %d\n%s", code, out)
			}
			if code, out := recount(t, dsn, "--check"); code != 0 || out != "activity counters match history\n" {
				t.Fatalf("check after recount: exit %d\n%s", code, out)
			}
		})
	}
}

// driftRows parses the rows of the drift table: "AGENT COUNTER" to stored
// and counted.
func driftRows(t *testing.T, lines []string) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 4 {
			t.Fatalf("drift row %q", l)
		}
		stored, err1 := strconv.Atoi(f[2])
		counted, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("drift row %q", l)
		}
		out[f[0]+" "+f[1]] = [2]int{stored, counted}
	}
	return out
}

// TestRecountAfterCrash kills `passport-issuer serve` on the demo world
// (SIGKILL) while agents publish public and private memories, read them,
// consult and validate over HTTP; afterwards `reputation recount --check`
// finds every counter equal to history, because a write and its counts
// commit together or not at all. On each engine.
func TestRecountAfterCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("a write storm against a serve process, then a kill")
	}
	// testscript.Main (TestMain) put a copy of this test binary on PATH
	// that runs as passport-issuer.
	bin, err := exec.LookPath("passport-issuer")
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dsn, keys := demoDB(t, engine)
			key := func(name string) string {
				var a struct {
					APIKey string `json:"apiKey"`
				}
				if err := json.Unmarshal([]byte(cmd(t, dsn, "agents", "create", "--name", name, "--json")), &a); err != nil {
					t.Fatal(err)
				}
				return a.APIKey
			}
			var author, reader [3]string
			for i := range author {
				author[i], reader[i] = key(fmt.Sprint("Author ", i)), key(fmt.Sprint("Reader ", i))
			}
			serve := exec.Command(bin, "--db", dsn, "serve", "--addr", "127.0.0.1:0", "--keys", keys, "--rate", "10000", "--burst", "10000")
			base := startProcess(t, serve)

			w := demoworld.Generate(demoworld.DefaultSeed)
			var public []string
			for i, m := range w.Memories {
				if !m.Private {
					public = append(public, string(w.MemoryID(i)))
				}
			}
			var written, private atomic.Int64
			var wg sync.WaitGroup
			for i := range author {
				s := &storm{t: t, base: base, written: &written}
				wg.Go(func() {
					for j := 0; ; j++ {
						vis := []string{"public", "private"}[j%2]
						var m struct {
							ID string `json:"id"`
						}
						if !s.do(author[i], "POST", "/api/memories", fmt.Sprintf(`{"category":"go","title":"t","content":"c %d %d","visibility":%q}`, i, j, vis), &m) ||
							!s.do(author[i], "GET", "/api/memories/"+m.ID, "", nil) {
							return
						}
						if vis == "private" {
							private.Add(1)
						}
					}
				})
				wg.Go(func() {
					for j := 0; ; j++ {
						mem, other := public[(i+j)%len(public)], public[(i+j+1)%len(public)]
						var rc struct {
							ID string `json:"id"`
						}
						if !s.do(reader[i], "GET", "/api/memories/"+mem, "", nil) ||
							!s.do(reader[i], "POST", "/api/memories/"+mem+"/feedback", `{"type":"corroborate"}`, nil) ||
							!s.do(reader[i], "POST", "/api/receipts", fmt.Sprintf(`{"memoryIds":[%q,%q]}`, mem, other), &rc) ||
							!s.do(reader[i], "POST", "/api/receipts/"+rc.ID+"/feedback", `{"type":"useful"}`, nil) {
							return
						}
					}
				})
			}
			for deadline := time.Now().Add(time.Minute); written.Load() < 300 || private.Load() < 3; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the storm wrote %d times (%d private memories) in a minute", written.Load(), private.Load())
				}
			}
			if err := serve.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			serve.Wait()
			wg.Wait()
			t.Logf("killed serve after %d writes", written.Load())

			if code, out := recount(t, dsn, "--check"); code != 0 || out != "activity counters match history\n" {
				t.Fatalf("check after the crash: exit %d\n%s", code, out)
			}
		})
	}
}

// startProcess starts serve (a `passport-issuer serve` process), kills it
// when the test ends, and returns its base URL once it listens.
func startProcess(t *testing.T, serve *exec.Cmd) string {
	t.Helper()
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		serve.Process.Kill()
		serve.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`msg=serving url=(http://127\.0\.0\.1:\d+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case base := <-urls:
		return base
	case <-time.After(time.Minute):
		t.Fatal("passport-issuer serve did not start")
		return ""
	}
}

// storm sends one writer's requests to a server that is about to die.
type storm struct {
	t       *testing.T
	base    string
	written *atomic.Int64
}

// do sends one request and decodes a success into out (when not nil). It
// counts a success as written, and reports false once the server is gone.
// A refusal of a validation (one the policy does not allow) is not a
// write but lets the writer go on; a refusal of a request whose answer
// the writer needs fails the test.
func (s *storm) do(key, method, path, body string, out any) bool {
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return false
	}
	if res.StatusCode >= 300 {
		if out != nil {
			s.t.Errorf("%s %s: %s: %s", method, path, res.Status, b)
		}
		return out == nil
	}
	s.written.Add(1)
	return out == nil || json.Unmarshal(b, out) == nil
}
