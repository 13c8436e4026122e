package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
)

// stormFor is how long TestPassportStorm writes and reads on each engine;
// the figures of docs/performance.md come from -storm 30s.
var stormFor = flag.Duration("storm", 0, "how long TestPassportStorm runs on each engine (default 3s, 1s with -short)")

// zeros is a source of zero bytes: every passport of the storm gets the
// same pseudonym key, so that a passport rebuilt from a recorded subject
// can equal a served one byte for byte.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// revisionsServed is the passport route's issuer, recording which subject
// revision each served passport says it describes.
type revisionsServed struct {
	*service.Passports
	mu  sync.Mutex
	rev map[string]string // passportHash → revision
}

func (r *revisionsServed) Issue(ctx context.Context, id issuer.AgentID, d issuing.Disclosure) (*issuing.Issued, error) {
	is, err := r.Passports.Issue(ctx, id, d)
	if err == nil {
		r.mu.Lock()
		r.rev[is.PassportHash] = is.Revision
		r.mu.Unlock()
	}
	return is, err
}

// TestPassportStorm races writers of outcome reports and validations on one
// subject against readers of its passport over HTTP (with If-None-Match),
// on both engines, and checks that every served passport is one real state
// of the store: equal, byte for byte, to the passport rebuilt from the
// subject as it stood at the revision the passport was cached under.
//
// Writers take turns (a write, then a read of the subject it left, under
// one lock), so that the history holds the one state of each revision;
// readers never wait for them. A passport that mixes two states, or names
// a revision other than the one it describes, is torn.
func TestPassportStorm(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) { stormOn(t, db) })
}

// TestPassportStormReplica is TestPassportStorm on PostgreSQL with a
// streaming replica (store.Options.ReadURL): passports are assembled from
// records read on the replica, which the writers keep behind the primary,
// and every one served must still be the passport of the revision it was
// cached under.
func TestPassportStormReplica(t *testing.T) {
	pair := storetest.StartReplicated(t)
	db := pair.Open(store.Options{})
	stormOn(t, db)
	kept, again := db.ReplicaSubjects()
	t.Logf("subjects kept as the replica read them: %d; read again on the primary: %d", kept, again)
}

// stormOn runs the storm on db for the -storm duration and fails t when a
// served passport describes no state of the store.
func stormOn(t *testing.T, db *store.DB) {
	d := *stormFor
	if d == 0 {
		d = 3 * time.Second
		if testing.Short() {
			d = time.Second
		}
	}
	s := newStorm(t, db)
	s.run(d)
	fetches, notModified := s.fetches.Load(), s.notModified.Load()
	torn := s.check()
	t.Logf("%s: %d fetches (%d not modified), %d writes, %d revisions, %d distinct passports served, %d torn",
		db.Engine(), fetches, notModified, s.writes.Load(), len(s.history), len(s.served), torn)
	if torn > 0 {
		t.Fatalf("%d of %d served passports describe no state of the store", torn, len(s.served))
	}
	if len(s.served) < 2 || s.writes.Load() < 2 {
		t.Fatalf("the storm served %d passports over %d writes: too few to test anything", len(s.served), s.writes.Load())
	}
}

type storm struct {
	t         *testing.T
	db        *store.DB
	app       *service.Service
	ring      *keyring.Keyring
	passports *service.Passports
	issued    *revisionsServed
	url       string
	subject   issuer.AgentID
	mems      []issuer.MemoryID
	reporters []issuer.Principal

	writing sync.Mutex                  // held for a write and the read of what it left
	history map[string]*issuing.Subject // revision → the subject as it stood

	servedMu sync.Mutex
	served   map[string][]byte // passportHash → the bundle served

	fetches, notModified, writes atomic.Int64
}

func newStorm(t *testing.T, db *store.DB) *storm {
	t.Helper()
	ctx := context.Background()
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	s := &storm{t: t, db: db, app: storetest.Service(db), ring: ring, history: map[string]*issuing.Subject{}, served: map[string][]byte{}}
	s.passports = service.NewPassports(db, ring, service.PassportOptions{Rand: zeros{}})
	s.issued = &revisionsServed{Passports: s.passports, rev: map[string]string{}}
	env := serve(t, db, httpapi.New(s.app, slog.New(slog.DiscardHandler), httpapi.Config{RatePerSecond: 1e6, Burst: 1e6, Keys: ring, Passports: s.issued}))
	s.url = env.srv.URL

	author := s.principal("Storm author", "Author house")
	s.subject = author.AgentID
	for i, skill := range []string{"sql tuning", "incident response", "sql tuning"} {
		m, err := s.app.Publish(ctx, author, issuer.Publication{
			Category: "sql", Domain: "sql", Title: fmt.Sprintf("Finding %d", i), Content: fmt.Sprintf("Knowledge %d.", i), Confidence: 600,
			AppliesTo: issuer.AppliesTo{Skill: skill, Context: evidence.Context{Workload: "oltp"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		s.mems = append(s.mems, m.ID)
	}
	for i := range 4 {
		r := s.principal(fmt.Sprintf("Storm reporter %d", i), fmt.Sprintf("Reporter house %d", i))
		for _, m := range s.mems {
			if _, err := s.app.Retrieve(ctx, r, m); err != nil {
				t.Fatal(err)
			}
		}
		s.reporters = append(s.reporters, r)
	}
	s.record()
	return s
}

// principal creates an agent owned by a new operator of its own.
func (s *storm) principal(name, operator string) issuer.Principal {
	s.t.Helper()
	ctx := context.Background()
	op, err := storetest.Admin(s.db).CreateOperator(ctx, operator)
	if err != nil {
		s.t.Fatal(err)
	}
	a, err := storetest.Admin(s.db).CreateAgent(ctx, service.NewAgent{Name: name, Operator: op})
	if err != nil {
		s.t.Fatal(err)
	}
	p, err := s.db.Authenticate(ctx, a.Key)
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// record reads the subject as it stands and keeps it under its revision.
// The caller holds s.writing, or no writer runs yet.
func (s *storm) record() {
	sub, err := s.db.LoadSubject(context.Background(), s.subject, time.Now)
	if err != nil {
		s.t.Error(err)
		return
	}
	s.history[sub.Revision] = sub
}

// run writes with four reporters and reads with six clients for d.
func (s *storm) run(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomePartial, evidence.OutcomeFailure, evidence.OutcomeUncertain}
	positions := []reputation.Type{reputation.Corroborate, reputation.Contradict, reputation.UsedSuccessfully}
	for w, r := range s.reporters {
		wg.Go(func() {
			for i := w; ctx.Err() == nil; i++ {
				mem := s.mems[i%len(s.mems)]
				s.writing.Lock()
				var err error
				if i%3 == 2 {
					_, _, err = s.app.SubmitFeedback(context.Background(), r, mem, issuer.Feedback{Type: positions[(i/3)%len(positions)]}, issuer.TransportHTTP)
				} else {
					o := issuer.OutcomeReport{Outcome: outcomes[i%len(outcomes)], Context: evidence.Context{Workload: fmt.Sprintf("w%d", i%5)}}
					_, _, err = s.app.ReportOutcome(context.Background(), r, mem, o, issuer.TransportHTTP)
				}
				if err != nil {
					s.writing.Unlock()
					s.t.Errorf("write: %v", err)
					return
				}
				s.writes.Add(1)
				s.record()
				s.writing.Unlock()
			}
		})
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	for range 6 {
		wg.Go(func() {
			etag := ""
			for ctx.Err() == nil {
				if err := s.fetch(client, &etag); err != nil {
					s.t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// fetch reads the subject's passport once, with If-None-Match etag, and
// keeps a passport it had not been served before.
func (s *storm) fetch(client *http.Client, etag *string) error {
	req, err := http.NewRequest("GET", s.url+issuer.PassportPath(s.subject), nil)
	if err != nil {
		return err
	}
	if *etag != "" {
		req.Header.Set("If-None-Match", *etag)
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	s.fetches.Add(1)
	switch res.StatusCode {
	case http.StatusNotModified:
		s.notModified.Add(1)
		return nil
	case http.StatusOK:
	default:
		return fmt.Errorf("passport: status %d: %s", res.StatusCode, body)
	}
	*etag = res.Header.Get("ETag")
	hash := (*etag)[1 : len(*etag)-1]
	s.servedMu.Lock()
	s.served[hash] = body
	s.servedMu.Unlock()
	return nil
}

// check rebuilds every served passport from the subject recorded at the
// revision it was served under and counts those that differ.
func (s *storm) check() int {
	t := s.t
	signer, _, err := s.ring.Active(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	torn := 0
	for hash, body := range s.served {
		rev, ok := s.issued.rev[hash]
		sub := s.history[rev]
		if !ok || sub == nil {
			torn++
			t.Errorf("passport %s names revision %q, which no write left", hash, rev)
			continue
		}
		b, err := passport.ParseBundleUnverified(body)
		if err != nil {
			t.Fatal(err)
		}
		var snap struct {
			Passport struct {
				IssuedAt      time.Time           `json:"issuedAt"`
				EvidenceCount int                 `json:"evidenceCount"`
				Status        *passport.StatusRef `json:"status"`
			} `json:"passport"`
		}
		if err := json.Unmarshal(b.Snapshot, &snap); err != nil {
			t.Fatal(err)
		}
		at := snap.Passport.IssuedAt.UTC()
		c, err := issuing.Collect(sub, make([]byte, service.PseudonymKeySize), at)
		if err != nil {
			t.Fatal(err)
		}
		d, err := issuing.Assemble(sub, c, issuing.Options{Issuer: s.ring.Issuer(), IssuedAt: at, Validity: service.DefaultPassportValidity,
			Status: snap.Passport.Status})
		if err != nil {
			t.Fatal(err)
		}
		want, err := d.Sign(signer, issuing.DisclosePreviews)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bundle, body) {
			torn++
			t.Errorf("passport %s (revision %s, issued %s) is not the passport of that revision: %d records served, %d at the revision",
				hash, rev, at.Format(time.RFC3339), snap.Passport.EvidenceCount, want.Passport.EvidenceCount)
		}
	}
	return torn
}
