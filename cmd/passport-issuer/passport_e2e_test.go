package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// buildVerifier builds the passport command, as a third party installs it.
func buildVerifier(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "passport")
	if out, err := exec.Command("go", "build", "-o", bin, "../passport").CombinedOutput(); err != nil {
		t.Fatalf("build passport: %v\n%s", err, out)
	}
	return bin
}

// serveIssuer runs serve on dsn until the test ends and returns its URL.
func serveIssuer(t *testing.T, dsn, keys string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var logs clitest.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, append([]string{"--db", dsn, "serve", "--addr", "127.0.0.1:0", "--keys", keys, "--rate", "1000", "--burst", "1000"}, extra...), io.Discard, &logs)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exit:
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
	})
	urlRE := regexp.MustCompile(`msg=serving url=(http://127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(logs.String()); m != nil {
			return m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", logs.String())
		}
	}
}

// recordWorld records, through the service, a subject whose memories were
// reused by evaluators of other operators, and returns the subject.
func recordWorld(t *testing.T, dsn string) issuer.AgentID {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := service.New(db, service.Options{})
	agent := func(name string) issuer.Principal {
		op, err := storetest.Admin(db).CreateOperator(ctx, name+" Inc")
		if err != nil {
			t.Fatal(err)
		}
		a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: name, Operator: op})
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.Authenticate(ctx, a.Key)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	subject := agent("Subject")
	var mems []issuer.MemoryID
	for i, skill := range []string{"PostgreSQL indexing", "PostgreSQL indexing", "SQLite"} {
		m, err := svc.Publish(ctx, subject, issuer.Publication{Category: "Databases", Domain: "databases", Title: fmt.Sprint("Note ", i),
			Content: "How to index.", Visibility: issuer.MemoryPublic,
			AppliesTo: issuer.AppliesTo{Skill: skill, Context: evidence.Context{Version: "16"}}})
		if err != nil {
			t.Fatal(err)
		}
		mems = append(mems, m.ID)
	}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial}
	for i := range 4 {
		ev := agent(fmt.Sprint("Evaluator ", i))
		for j, m := range mems {
			if _, err := svc.Retrieve(ctx, ev, m); err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.ReportOutcome(ctx, ev, m, issuer.OutcomeReport{Outcome: outcomes[(i+j)%len(outcomes)],
				Context: evidence.Context{Environment: "prod"}}, issuer.TransportHTTP); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := svc.SubmitFeedback(ctx, ev, mems[2], issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP); err != nil {
			t.Fatal(err)
		}
	}
	return subject.AgentID
}

// get GETs url with an optional If-None-Match and returns the status, the
// ETag and the body.
func get(t *testing.T, url, etag string) (int, string, []byte) {
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
	return res.StatusCode, res.Header.Get("ETag"), b
}

// TestPassportEndToEnd: on each engine, what agents record through the
// service is issued over HTTP; the built passport command verifies the
// bundle with the trust file the issuer serves and re-derives it from the
// evidence file; a tampered bundle fails; a passport of a rotated-out key
// still verifies; the offline command issues the same kind of passport.
func TestPassportEndToEnd(t *testing.T) {
	bin := buildVerifier(t)
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dir := t.TempDir()
			path := func(name string) string { return filepath.Join(dir, name) }
			write := func(name string, b []byte) string {
				if err := os.WriteFile(path(name), b, 0o644); err != nil {
					t.Fatal(err)
				}
				return path(name)
			}
			verify := func(args ...string) (int, string) {
				t.Helper()
				out, err := exec.Command(bin, append([]string{"verify"}, args...)...).CombinedOutput()
				if ee, ok := err.(*exec.ExitError); ok {
					return ee.ExitCode(), string(out)
				} else if err != nil {
					t.Fatal(err)
				}
				return 0, string(out)
			}

			dsn := storetest.URL(t, engine)
			keys := path("keys")
			cmd(t, dsn, "migrate")
			subject := recordWorld(t, dsn)
			base := serveIssuer(t, dsn, keys)
			pp := base + "/api/public/agents/" + string(subject) + "/passport"

			status, etag, bundle := get(t, pp, "")
			if status != 200 {
				t.Fatalf("passport: %d %s", status, bundle)
			}
			if status, _, _ := get(t, pp, etag); status != 304 {
				t.Fatalf("If-None-Match: %d", status)
			}
			_, _, trust := get(t, base+"/.well-known/passport-trust.json", "")
			hash := strings.Trim(etag, `"`)
			status, _, file := get(t, pp+"/evidence?passportHash="+hash, "")
			if status != 200 {
				t.Fatalf("evidence: %d %s", status, file)
			}
			bundlePath, trustPath, filePath := write("bundle.json", bundle), write("trust.json", trust), write("evidence.json", file)

			// serve routes the web pages too: the profile shows the passport
			// the API serves.
			if status, _, page := get(t, base+"/agents/"+string(subject), ""); status != 200 || !bytes.Contains(page, []byte(hash)) {
				t.Fatalf("profile page: %d, naming the served passport: %v", status, bytes.Contains(page, []byte(hash)))
			}

			if code, out := verify("--subject", string(subject), "--trust", trustPath, bundlePath); code != 0 {
				t.Fatalf("verify: exit %d\n%s", code, out)
			}
			code, out := verify("--subject", string(subject), "--trust", trustPath, "--recompute", "--evidence", filePath, bundlePath)
			if code != 0 || !strings.Contains(out, "evidence file: ok") || !strings.Contains(out, "match") {
				t.Fatalf("verify --recompute --evidence: exit %d\n%s", code, out)
			}
			if strings.Contains(out, "differs") || strings.Contains(out, "not_disclosed") {
				t.Fatalf("recompute:\n%s", out)
			}

			// serve wires the trust API: it lists the passport's skill
			// passports, and pages their sources.
			status, _, listBody := get(t, base+"/api/public/agents/"+string(subject)+"/skills", "")
			var list issuer.SkillList
			if err := json.Unmarshal(listBody, &list); err != nil || status != 200 || len(list.Skills) == 0 {
				t.Fatalf("skills: %d %s", status, listBody)
			}
			for _, s := range list.Skills {
				if !bytes.Contains(bundle, []byte(`"assessmentHash":"`+s.AssessmentHash+`"`)) {
					t.Errorf("the trust API's %s is not the passport's", s.Skill)
				}
			}
			if status, _, page := get(t, base+list.Skills[0].Links.Evidence+"?limit=1", ""); status != 200 || !bytes.Contains(page, []byte(`"nextCursor"`)) {
				t.Fatalf("evidence: %d %s", status, page)
			}

			// Tampering with the signed bytes, or with the evidence file.
			tampered := bytes.Replace(bundle, []byte(`"trustLevel":"`), []byte(`"trustLevel":"x`), 1)
			if code, out := verify("--subject", string(subject), "--trust", trustPath, write("tampered.json", tampered)); code != 1 {
				t.Fatalf("tampered bundle: exit %d\n%s", code, out)
			}
			altered := bytes.Replace(file, []byte(`"outcome":"failure"`), []byte(`"outcome":"success"`), 1)
			if bytes.Equal(altered, file) {
				t.Fatal("the evidence file has no failure to alter")
			}
			if code, out := verify("--subject", string(subject), "--trust", trustPath, "--recompute", "--evidence", write("altered.json", altered), bundlePath); code != 1 || !strings.Contains(out, "evidence_root_mismatch") {
				t.Fatalf("altered evidence file: exit %d\n%s", code, out)
			}

			// Rotation: the old key's passport still verifies with the new
			// trust file, and new passports are signed by the new key.
			cmd(t, dsn, "keys", "rotate", "--keys", keys)
			_, _, trust2 := get(t, base+"/.well-known/passport-trust.json", "")
			trust2Path := write("trust2.json", trust2)
			if code, out := verify("--subject", string(subject), "--trust", trust2Path, bundlePath); code != 0 {
				t.Fatalf("after rotation: exit %d\n%s", code, out)
			}

			// Offline issuance with the new key.
			cmd(t, dsn, "passports", "issue", string(subject), "--keys", keys, "--disclose", "all", "-o", path("offline.json"), "--evidence", path("offline-evidence.json"))
			if code, out := verify("--subject", string(subject), "--trust", trust2Path, "--recompute", path("offline.json")); code != 0 || !strings.Contains(out, "match") {
				t.Fatalf("offline bundle: exit %d\n%s", code, out)
			}
			if code, out := verify("--subject", string(subject), "--trust", trust2Path, "--recompute", "--evidence", path("offline-evidence.json"), path("offline.json")); code != 0 {
				t.Fatalf("offline evidence: exit %d\n%s", code, out)
			}
			if code, out := verify("--subject", string(subject), "--trust", trustPath, path("offline.json")); code == 0 {
				t.Fatalf("a trust file without the new key accepted its passport:\n%s", out)
			}
		})
	}
}

// TestPassportsIssueRefusals: each refusal of the offline command is a
// clear error that changes nothing.
func TestPassportsIssueRefusals(t *testing.T) {
	dir := t.TempDir()
	dsn := filepath.Join(dir, "issuer.db")
	keys := filepath.Join(dir, "keys")
	fail := func(want string, args ...string) {
		t.Helper()
		var out, errs bytes.Buffer
		if code := run(context.Background(), append([]string{"--db", dsn}, args...), &out, &errs); code == 0 || !strings.Contains(errs.String(), want) {
			t.Fatalf("%v: exit %d, want an error naming %q: %s", args, code, want, errs.String())
		}
		if out.Len() != 0 {
			t.Fatalf("%v wrote %q", args, out.String())
		}
	}
	fail("no schema yet", "passports", "issue", "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa", "--keys", keys)
	cmd(t, dsn, "migrate")
	var a struct {
		PublicID string `json:"publicId"`
	}
	json.Unmarshal([]byte(cmd(t, dsn, "agents", "create", "--name", "Subject", "--json")), &a)
	fail("no active signing key", "passports", "issue", a.PublicID, "--keys", keys)
	cmd(t, dsn, "keys", "rotate", "--keys", keys)
	fail("not found", "passports", "issue", "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa", "--keys", keys)
	fail("agt_", "passports", "issue", "nonsense", "--keys", keys)
	fail("disclose", "passports", "issue", a.PublicID, "--keys", keys, "--disclose", "everything")

	files, _ := filepath.Glob(filepath.Join(keys, "*"))
	for _, f := range files {
		os.Chmod(f, 0o644)
	}
	fail("readable by group or others", "passports", "issue", a.PublicID, "--keys", keys)
	for _, f := range files {
		os.Chmod(f, 0o600)
	}
	kept := func() int {
		t.Helper()
		db, err := store.Open(context.Background(), dsn, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.UnsafeSQL().Get(&n, `SELECT COUNT(*) FROM issued_passports`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := kept(); n != 0 {
		t.Fatalf("refused issuances kept %d passports", n)
	}
	if out := cmd(t, dsn, "passports", "issue", a.PublicID, "--keys", keys); !strings.Contains(out, `"bundleVersion"`) {
		t.Fatalf("issue: %s", out)
	}
	if n := kept(); n != 1 {
		t.Fatalf("an issuance kept %d passports", n)
	}

	// A database one migration behind is refused before anything is read.
	db, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var latest int64
	if err := db.UnsafeSQL().Get(&latest, `SELECT MAX(version_id) FROM goose_db_version`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UnsafeSQL().Exec(db.UnsafeSQL().Rebind(`DELETE FROM goose_db_version WHERE version_id = ?`), latest); err != nil {
		t.Fatal(err)
	}
	var behind int64
	if err := db.UnsafeSQL().Get(&behind, `SELECT MAX(version_id) FROM goose_db_version`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	fail(fmt.Sprintf("schema is at version %d and this release needs %d", behind, latest), "passports", "issue", a.PublicID, "--keys", keys)
	if n := kept(); n != 1 {
		t.Fatalf("a refused issuance changed the kept passports: %d", n)
	}
}

// TestTwoServeProcessesNeverServeStale runs two serve commands on one
// PostgreSQL schema: a write through one is never answered with an older
// passport by the other, at once and without waiting.
func TestTwoServeProcessesNeverServeStale(t *testing.T) {
	if !slices.Contains(storetest.Engines(t), store.Postgres) {
		t.Skip("two serve processes share a PostgreSQL database: " + storetest.EnvURL + " is not set")
	}
	dsn := storetest.URL(t, store.Postgres)
	keys := filepath.Join(t.TempDir(), "keys")
	cmd(t, dsn, "migrate")
	subject := recordWorld(t, dsn)
	a := serveIssuer(t, dsn, keys)
	b := serveIssuer(t, dsn, keys)

	var memID string
	db, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UnsafeSQL().Get(&memID, `SELECT m.public_id FROM memories m JOIN agents a ON a.id = m.author_id
		WHERE a.public_id = $1 ORDER BY m.id LIMIT 1`, subject); err != nil {
		t.Fatal(err)
	}
	db.Close()

	count := func(bundle []byte) int {
		var bd struct {
			Snapshot struct {
				Passport struct {
					EvidenceCount int `json:"evidenceCount"`
				} `json:"passport"`
			} `json:"snapshot"`
		}
		if err := json.Unmarshal(bundle, &bd); err != nil {
			t.Fatal(err)
		}
		return bd.Snapshot.Passport.EvidenceCount
	}
	path := "/api/public/agents/" + string(subject) + "/passport"
	status, etag, bundle := get(t, b+path, "")
	if status != 200 {
		t.Fatalf("b: %d %s", status, bundle)
	}
	for i := range 3 {
		var op struct {
			ID string `json:"id"`
		}
		json.Unmarshal([]byte(cmd(t, dsn, "operators", "create", "--name", fmt.Sprint("Late ", i), "--json")), &op)
		var ev struct {
			APIKey string `json:"apiKey"`
		}
		json.Unmarshal([]byte(cmd(t, dsn, "agents", "create", "--name", fmt.Sprint("Late evaluator ", i), "--operator", op.ID, "--json")), &ev)
		call := func(method, p, body string) {
			t.Helper()
			req, _ := http.NewRequest(method, a+p, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+ev.APIKey)
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode >= 300 {
				t.Fatalf("%s %s on a: %d %s", method, p, res.StatusCode, b)
			}
		}
		call("GET", "/api/memories/"+memID, "")
		call("POST", "/api/memories/"+memID+"/feedback", `{"type":"corroborate"}`)
		status, next, after := get(t, b+path, etag)
		if status != 200 || next == etag || count(after) != count(bundle)+1 {
			t.Fatalf("write %d through a: b answered %d, etag %s (was %s), %d records (was %d)", i, status, next, etag, count(after), count(bundle))
		}
		etag, bundle = next, after
	}
}
