package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/issuing/issuingtest"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
	"github.com/remnant/passportkit/verifier"
)

// subjects is the store with the subjects' evidence given by the test: the
// agents, their visibility and status, the key table and the archive of
// issued passports are the real store's; each agent's memories and events
// are a generated issuing.Subject, and its revision a token the test
// replaces when it changes that subject.
type subjects struct {
	*store.DB
	mu  sync.Mutex
	sub map[issuer.AgentID]*issuing.Subject
	rev map[issuer.AgentID]string
}

var _ service.SubjectStore = (*subjects)(nil)

type agentState struct {
	Key        int64  `db:"id"`
	Status     string `db:"status"`
	Visibility string `db:"visibility"`
}

func (s *subjects) state(ctx context.Context, id issuer.AgentID) (agentState, error) {
	var a agentState
	x := s.UnsafeSQL()
	if err := x.GetContext(ctx, &a, x.Rebind(`SELECT id, status, visibility FROM agents WHERE public_id = ?`), id); err != nil {
		return a, issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
	}
	return a, nil
}

func (s *subjects) LoadSubject(ctx context.Context, id issuer.AgentID, now func() time.Time) (*issuing.Subject, error) {
	a, err := s.state(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := *s.sub[id]
	sub.PublicID, sub.Status, sub.Visibility = id, issuer.AgentStatus(a.Status), issuer.Visibility(a.Visibility)
	sub.Revision, sub.At = s.revision(id, a), now()
	return &sub, nil
}

func (s *subjects) SubjectRevision(ctx context.Context, id issuer.AgentID) (string, error) {
	a, err := s.state(ctx, id)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revision(id, a), nil
}

// revision is id's revision token, given its state; s.mu is held.
func (s *subjects) revision(id issuer.AgentID, a agentState) string {
	return s.rev[id] + "/" + a.Status + "/" + a.Visibility
}

// set gives id the subject sub and a new revision.
func (s *subjects) set(id issuer.AgentID, sub *issuing.Subject) {
	b := make([]byte, 16)
	rand.Read(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sub[id], s.rev[id] = sub, hex.EncodeToString(b)
}

// passportEnv is a server on loopback issuing passports from a real store
// and keyring, with a clock the test moves.
type passportEnv struct {
	*env
	subjects *subjects
	ring     *keyring.Keyring
	clock    *clock
	app      *service.Passports
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var issueTime = time.Date(2026, 11, 30, 12, 10, 0, 0, time.UTC)

func newPassportEnv(t testing.TB, engine store.Engine, cfg ...func(*httpapi.Config, *service.Passports, *store.DB)) *passportEnv {
	c := &clock{t: issueTime}
	db := storetest.Open(t, engine, store.Options{Now: c.Now})
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys"), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	subs := &subjects{DB: db, sub: map[issuer.AgentID]*issuing.Subject{}, rev: map[issuer.AgentID]string{}}
	app := service.NewPassports(subs, ring, service.PassportOptions{Now: c.Now})
	hc := httpapi.Config{Keys: ring, Passports: app}
	for _, f := range cfg {
		f(&hc, app, db)
	}
	e := newEnv(t, db, hc)
	return &passportEnv{env: e, subjects: subs, ring: ring, clock: c, app: app}
}

// subject creates an agent and gives it a generated subject.
func (pe *passportEnv) subject(name string, seed uint64, vis issuer.Visibility) (issuer.AgentID, *issuingtest.World) {
	pe.t.Helper()
	a, err := storetest.Admin(pe.db).CreateAgent(context.Background(), service.NewAgent{Name: name, Visibility: vis})
	if err != nil {
		pe.t.Fatal(err)
	}
	w := issuingtest.NewWorld(seed, issueTime)
	pe.subjects.set(a.ID, w.Subject(issuingtest.Shape{Memories: 30, Events: 300, Agents: 10, Operators: 4, Capabilities: 2}))
	return a.ID, w
}

func (pe *passportEnv) get(path, etag string) response {
	pe.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, pe.srv.URL+path, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	res, err := pe.client.Do(req)
	if err != nil {
		pe.t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b.Bytes()}
}

// verifier returns a verifier of the trust file the server publishes.
func (pe *passportEnv) verifier() *verifier.Verifier {
	pe.t.Helper()
	tf := must(pe.t, pe.get("/.well-known/passport-trust.json", ""), 200)
	trust, err := verifier.ParseTrust(tf.body)
	if err != nil {
		pe.t.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		pe.t.Fatal(err)
	}
	return v
}

// verify checks bundle against the trust file the server publishes, as of
// the test clock.
func (pe *passportEnv) verify(bundle []byte) *verifier.Result {
	pe.t.Helper()
	res, err := pe.verifier().Verify(context.Background(), bundle, verifier.AnySubject().At(pe.clock.Now()))
	if err != nil {
		pe.t.Fatal(err)
	}
	return res
}

// checkEvidence checks that file is the evidence file of the verified
// passport res: its tree head is the signed evidenceRoot, and every skill
// passport recomputes from it.
func checkEvidence(t *testing.T, res *verifier.Result, file []byte) {
	t.Helper()
	set, err := evidence.Parse(file)
	if err != nil {
		t.Fatalf("evidence file: %v", err)
	}
	leaves := map[int][]byte{}
	hashes := make([]evidence.Hash, len(set.Records()))
	var lh evidence.LeafHasher
	for i, rec := range set.Records() {
		leaf, err := rec.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		leaves[i], hashes[i] = leaf, lh.Sum(leaf)
	}
	if root := evidence.NewTree(hashes).Root().String(); root != res.EvidenceRoot {
		t.Fatalf("evidence file root %s; the passport signs %s", root, res.EvidenceRoot)
	}
	p, err := res.Decode()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range skilltrust.Recompute(p.SkillPassports, p.EvidenceCount, leaves) {
		if r.Status != "match" {
			t.Errorf("recompute %s: %s %s", r.Skill, r.Status, r.Detail)
		}
	}
}

func TestPassportOverHTTP(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			pe := newPassportEnv(t, engine)
			ctx := context.Background()
			id, _ := pe.subject("Subject", 1, "")
			other, _ := pe.subject("Other", 2, "")
			path := "/api/public/agents/" + string(id) + "/passport"

			// No key yet: unavailable, and nothing is kept.
			wantProblem(t, pe.get(path, ""), 503, issuer.CodeUnavailable)
			if _, err := pe.ring.EnsureActive(ctx, passport.EdDSA); err != nil {
				t.Fatal(err)
			}

			r := must(t, pe.get(path, ""), 200)
			if ct := r.header.Get("Content-Type"); ct != httpapi.BundleMediaType {
				t.Fatalf("content type %q", ct)
			}
			res := pe.verify(r.body)
			if !res.Verified || res.Subject != string(id) {
				t.Fatalf("not verified: %+v", res)
			}
			etag := r.header.Get("ETag")
			if etag != `"`+res.PassportHash+`"` {
				t.Fatalf("ETag %s; passportHash %s", etag, res.PassportHash)
			}
			if len(res.Evidence) == 0 {
				t.Fatal("the default bundle discloses no record")
			}

			// Within the hour the same signed bundle, and 304 on its ETag.
			pe.clock.Add(20 * time.Minute)
			again := must(t, pe.get(path+"?disclose=previews", ""), 200)
			if !bytes.Equal(again.body, r.body) {
				t.Fatal("a second request within the hour got another bundle")
			}
			must(t, pe.get(path, etag), 304)
			must(t, pe.get(path, `"other", W/`+etag), 304)

			all := must(t, pe.get(path+"?disclose=all", ""), 200)
			ra := pe.verify(all.body)
			if pa, err := ra.Decode(); err != nil || !ra.Verified || ra.PassportHash != res.PassportHash || len(ra.Evidence) != pa.EvidenceCount {
				t.Fatalf("disclose=all: %+v", ra)
			}
			none := must(t, pe.get(path+"?disclose=none", ""), 200)
			if rn := pe.verify(none.body); !rn.Verified || len(rn.Evidence) != 0 {
				t.Fatalf("disclose=none: %+v", rn)
			}
			for _, q := range []string{"?disclose=everything", "?disclose=ALL", "?disclose=all&disclose=none", "?limit=3"} {
				wantProblem(t, pe.get(path+q, ""), 400, issuer.CodeInvalid)
			}

			// The evidence file of the issued passport.
			ev := must(t, pe.get(path+"/evidence?passportHash="+res.PassportHash, ""), 200)
			checkEvidence(t, ra, ev.body)
			if !bytes.Contains(ev.body, []byte(`"passportHash":"`+res.PassportHash+`"`)) {
				t.Fatal("the evidence file does not name its passport")
			}
			otherPath := "/api/public/agents/" + string(other) + "/passport"
			must(t, pe.get(otherPath, ""), 200)
			wantProblem(t, pe.get(otherPath+"/evidence?passportHash="+res.PassportHash, ""), 404, issuer.CodeNotFound)
			wantProblem(t, pe.get(path+"/evidence?passportHash="+strings.Repeat("0", 64), ""), 404, issuer.CodeNotFound)
			wantProblem(t, pe.get(path+"/evidence?passportHash=abc", ""), 400, issuer.CodeInvalid)
			wantProblem(t, pe.get(path+"/evidence", ""), 400, issuer.CodeInvalid)

			// A changed subject, and the next hour, get a new passport; the
			// old one's evidence stays available.
			pe.subjects.set(id, pe.subjects.sub[id])
			changed := must(t, pe.get(path, etag), 200)
			if changed.header.Get("ETag") == etag {
				t.Fatal("a changed subject kept its passport")
			}
			pe.clock.Add(time.Hour)
			next := must(t, pe.get(path, changed.header.Get("ETag")), 200)
			if next.header.Get("ETag") == changed.header.Get("ETag") {
				t.Fatal("the next hour kept the passport")
			}
			must(t, pe.get(path+"/evidence?passportHash="+res.PassportHash, ""), 200)

			// A rotated-out key still verifies what it signed.
			if _, err := pe.ring.Rotate(ctx, "", passport.EdDSA); err != nil {
				t.Fatal(err)
			}
			if res := pe.verify(next.body); !res.Verified {
				t.Fatalf("a passport of the rotated-out key: %+v", res)
			}

			// Past expiry and retention, the evidence is gone: 404.
			pe.clock.Add(service.DefaultPassportValidity + service.DefaultEvidenceRetention + time.Minute)
			must(t, pe.get(path, ""), 200) // an issuance purges
			wantProblem(t, pe.get(path+"/evidence?passportHash="+res.PassportHash, ""), 404, issuer.CodeNotFound)

			// Unknown, private, unlisted and suspended subjects are alike.
			wantProblem(t, pe.get("/api/public/agents/agt_"+strings.Repeat("a", 26)+"/passport", ""), 404, issuer.CodeNotFound)
			wantProblem(t, pe.get("/api/public/agents/nonsense/passport", ""), 404, issuer.CodeNotFound)
			for _, vis := range []issuer.Visibility{issuer.VisibilityPrivate, issuer.VisibilityUnlisted} {
				hidden, _ := pe.subject(fmt.Sprint("Hidden ", vis), 3, vis)
				wantProblem(t, pe.get("/api/public/agents/"+string(hidden)+"/passport", ""), 404, issuer.CodeNotFound)
			}
			if err := storetest.Admin(pe.db).SetAgentStatus(ctx, other, issuer.AgentSuspended); err != nil {
				t.Fatal(err)
			}
			wantProblem(t, pe.get(otherPath, ""), 404, issuer.CodeNotFound)
		})
	}
}

// TestPassportAtTheLimits: at the collection limits the default bundle is
// served, and disclose=all is refused with 413 naming the size.
func TestPassportAtTheLimits(t *testing.T) {
	t.Parallel()
	pe := newPassportEnv(t, store.SQLite)
	if _, err := pe.ring.EnsureActive(context.Background(), passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	id, _ := pe.subject("Limit", 1, "")
	pe.subjects.set(id, issuingtest.LimitSubject(issueTime, evidence.MaxMemories, evidence.MaxReports))
	path := "/api/public/agents/" + string(id) + "/passport"
	r := must(t, pe.get(path, ""), 200)
	if res := pe.verify(r.body); !res.Verified {
		t.Fatalf("not verified: %+v", res)
	}
	p := wantProblem(t, pe.get(path+"?disclose=all", ""), 413, issuer.CodeTooLarge)
	if !strings.Contains(p.Detail, fmt.Sprint(passport.MaxBundleSize)) || !strings.Contains(p.Detail, "disclose=previews") {
		t.Fatalf("413 detail %q", p.Detail)
	}
	ev := must(t, pe.get(path+"/evidence?passportHash="+strings.Trim(r.header.Get("ETag"), `"`), ""), 200)
	if set, err := evidence.Parse(ev.body); err != nil || len(set.Records()) != evidence.MaxReports {
		t.Fatalf("evidence file: %v", err)
	}
}
