package multiproc

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// processes is how many issuer processes the correctness test runs.
const processes = 4

// staleBound is how long a process may serve a passport older than an
// acknowledged write before the test concludes that the change never
// reached it.
const staleBound = 10 * time.Second

// TestSeveralProcesses runs four serve processes over one database and
// checks that they act as one issuer: a write through one frees every
// other's cached passport, a key change is honoured by all at once, an
// idempotency key holds across them and the hourly skill history is
// written once.
func TestSeveralProcesses(t *testing.T) {
	c := newCluster(t)
	c.start(processes)
	author := c.createAgent(t, "Author")
	reviewers := []agent{c.createAgent(t, "Reviewer one"), c.createAgent(t, "Reviewer two")}

	t.Run("invalidation", func(t *testing.T) { testInvalidation(t, c, author) })
	t.Run("keys", func(t *testing.T) { testKeys(t, c, author) })
	t.Run("idempotency", func(t *testing.T) { testIdempotency(t, c, author, reviewers[0]) })
	t.Run("skill history", func(t *testing.T) { testSkillHistory(t, c, author, reviewers) })
	t.Run("discovery index", func(t *testing.T) { testIndexOnce(t, c, c.createAgent(t, "Indexed")) })
}

// testIndexOnce writes through each process in turn, waiting after each
// write until the discovery index holds the subject's new revision and
// the other processes had time to follow, and checks that each change was
// indexed about once, not once by every process that heard of it. It
// counts the index's writes with a trigger of its own.
func testIndexOnce(t *testing.T, c *cluster, a agent) {
	const writes = 12
	for _, q := range []string{
		`CREATE TABLE test_index_writes (agent_id BIGINT NOT NULL)`,
		`CREATE FUNCTION test_count_index_write() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN INSERT INTO test_index_writes VALUES (NEW.agent_id); RETURN NEW; END $$`,
		`CREATE TRIGGER test_count_index_write AFTER UPDATE ON discovery_subjects FOR EACH ROW EXECUTE FUNCTION test_count_index_write()`,
	} {
		if _, err := c.sql.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	counted := func() int {
		var n int
		if err := c.sql.QueryRow(`SELECT count(*) FROM test_index_writes w JOIN agents a ON a.id = w.agent_id WHERE a.public_id = $1`, a.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := counted()
	for w := range writes {
		c.publish(t, w%len(c.procs), a.Key, fmt.Sprintf(`{"category":"Indexing","title":"Entry %d","content":"Indexed once, %d.","appliesTo":{"skill":"Go"}}`, w, w))
		for deadline := time.Now().Add(staleBound); ; {
			var current bool
			if err := c.sql.QueryRow(`SELECT COALESCE(s.revision = COALESCE(r.revision, ''), FALSE) FROM agents a LEFT JOIN discovery_subjects s ON s.agent_id = a.id
				LEFT JOIN skill_trust_revisions r ON r.agent_id = a.id WHERE a.public_id = $1`, a.ID).Scan(&current); err != nil {
				t.Fatal(err)
			}
			if current {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the index does not hold write %d %v after it was acknowledged", w, staleBound)
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond) // the other processes follow
	}
	n := counted() - before
	t.Logf("%d writes on %d processes were indexed %d times", writes, len(c.procs), n)
	if n >= 2*writes {
		t.Errorf("%d writes were indexed %d times: every process indexes every change", writes, n)
	}
}

// testInvalidation writes through each process in turn and reads the
// author's passport through every other until it shows the write,
// reporting the lag from the write's acknowledgement.
func testInvalidation(t *testing.T, c *cluster, author agent) {
	const writes = 40
	ctx := context.Background()
	before := c.publishedCount(t, author)
	var lags []time.Duration
	staleAfterAck := 0
	for w := range writes {
		// Every process holds the current passport before the write.
		for i := range c.procs {
			if _, err := c.readPassport(ctx, i, author.ID); err != nil {
				t.Fatal(err)
			}
		}
		writer := w % len(c.procs)
		c.publish(t, writer, author.Key, fmt.Sprintf(`{"category":"Databases","title":"Finding %d","content":"What was found, %d."}`, w, w))
		acked := time.Now()
		want := before + w + 1
		var mu sync.Mutex
		var wg sync.WaitGroup
		var failed error
		for i := range c.procs {
			if i == writer {
				continue
			}
			wg.Go(func() {
				for n := 0; ; n++ {
					is, err := c.readPassport(ctx, i, author.ID)
					mu.Lock()
					switch {
					case err != nil:
						failed = err
					case is.published == want:
						lags = append(lags, time.Since(acked))
					case time.Since(acked) > staleBound:
						failed = fmt.Errorf("process %d still serves %d publications %v after the write of the %dth was acknowledged", i, is.published, staleBound, want)
					default:
						staleAfterAck++
					}
					done := err != nil || is.published == want || failed != nil
					mu.Unlock()
					if done {
						return
					}
					time.Sleep(time.Millisecond)
				}
			})
		}
		wg.Wait()
		if failed != nil {
			t.Fatal(failed)
		}
	}
	slices.Sort(lags)
	t.Logf("invalidation lag over %d reads after %d writes on %d processes: p50 %v, p99 %v, max %v; %d stale reads after an acknowledged write",
		len(lags), writes, len(c.procs), lags[len(lags)/2], lags[len(lags)*99/100], lags[len(lags)-1], staleAfterAck)
}

// publishedCount returns the author's publications as its passport states
// them through process 0.
func (c *cluster) publishedCount(t testing.TB, a agent) int {
	t.Helper()
	is, err := c.readPassport(context.Background(), 0, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return is.published
}

// testKeys reads the author's passport through every process without a
// pause while the admin command rotates the key, withdraws the active one
// and rotates again, and checks each read that began after a change was
// acknowledged against that change.
func testKeys(t *testing.T, c *cluster, author agent) {
	type read struct {
		proc       int
		start, end time.Time
		kid        string
		status     int
	}
	ctx, stop := context.WithCancel(context.Background())
	var mu sync.Mutex
	var reads []read
	var failed error
	var wg sync.WaitGroup
	for i := range c.procs {
		wg.Go(func() {
			for ctx.Err() == nil {
				r := read{proc: i, start: time.Now()}
				is, err := c.readPassport(ctx, i, author.ID)
				r.end = time.Now()
				if se, ok := err.(*statusError); ok {
					r.status = se.status
				} else if err == nil {
					r.status, r.kid = http.StatusOK, is.kid
				} else {
					if ctx.Err() == nil { // not a read cut short by the end
						mu.Lock()
						failed = err
						mu.Unlock()
					}
					return
				}
				mu.Lock()
				reads = append(reads, r)
				mu.Unlock()
			}
		})
	}
	// change runs a key command and returns the times around it and the
	// kid of its output's line "key <kid> <verb> …".
	type change struct {
		begun, acked time.Time
		kid          string
	}
	pause := func() { time.Sleep(1500 * time.Millisecond) }
	run := func(verb string, args ...string) change {
		ch := change{begun: time.Now()}
		out := c.command(t, append([]string{"keys", "--keys", c.keys}, args...)...)
		ch.acked = time.Now()
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[0] == "key" && f[2] == verb {
				ch.kid = f[1]
			}
		}
		if ch.kid == "" {
			t.Fatalf("keys %v: no line \"key <kid> %s\" in %q", args, verb, out)
		}
		return ch
	}
	pause()
	rotated := run("is", "rotate")
	pause()
	withdrawn := run("retired", "retire", rotated.kid, "--withdraw")
	pause()
	again := run("is", "rotate")
	pause()
	stop()
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	if withdrawn.kid != rotated.kid {
		t.Fatalf("retire named %s, not %s", withdrawn.kid, rotated.kid)
	}
	// Each window runs from one acknowledgement to the start of the next
	// change: every read begun in it must show that change.
	windows := []struct {
		name      string
		from, to  time.Time
		wantKID   string // "" where no key is active
		forbidden string
	}{
		{"after the rotation", rotated.acked, withdrawn.begun, rotated.kid, ""},
		{"after the withdrawal", withdrawn.acked, again.begun, "", rotated.kid},
		{"after the second rotation", again.acked, time.Now(), again.kid, rotated.kid},
	}
	longest := make([]time.Duration, len(c.procs))
	for _, r := range reads {
		longest[r.proc] = max(longest[r.proc], r.end.Sub(r.start))
	}
	t.Logf("longest read per process: %v", longest)
	for _, w := range windows {
		seen := make([]int, len(c.procs))
		statuses := map[int]int{}
		var slowest time.Duration
		for _, r := range reads {
			if r.start.Before(w.from) || !r.end.Before(w.to) {
				continue
			}
			seen[r.proc]++
			statuses[r.status]++
			slowest = max(slowest, r.end.Sub(r.start))
			switch {
			case r.status == http.StatusOK && (r.kid == w.forbidden || w.wantKID == ""):
				t.Errorf("%s: process %d signed with %s, begun %v after the acknowledgement", w.name, r.proc, r.kid, r.start.Sub(w.from))
			case w.wantKID != "" && (r.status != http.StatusOK || r.kid != w.wantKID):
				t.Errorf("%s: process %d answered %d with key %q, not %s, begun %v after the acknowledgement", w.name, r.proc, r.status, r.kid, w.wantKID, r.start.Sub(w.from))
			}
		}
		for i, n := range seen {
			if n == 0 {
				t.Errorf("%s: process %d answered no read inside the window", w.name, i)
			}
		}
		t.Logf("%s: reads per process %v, by status %v, slowest %v", w.name, seen, statuses, slowest)
	}
}

// testIdempotency sends one validation under one idempotency key to every
// process at once, for several memories, and checks that every process
// gives the same answer and that one validation was recorded.
func testIdempotency(t *testing.T, c *cluster, author, reviewer agent) {
	const rounds = 10
	ctx := context.Background()
	for r := range rounds {
		mem := c.publish(t, r%len(c.procs), author.Key, fmt.Sprintf(`{"category":"Caching","title":"Idempotent %d","content":"A finding, %d."}`, r, r))
		c.call(t, (r+1)%len(c.procs), http.MethodGet, "/api/memories/"+mem, reviewer.Key, "")
		body := fmt.Sprintf(`{"type":"corroborate","reason":"Reproduced, round %d.","idempotencyKey":"round-%d"}`, r, r)
		answers := make([]response, len(c.procs))
		errs := make([]error, len(c.procs))
		var ready, wg sync.WaitGroup
		ready.Add(len(c.procs))
		gate := make(chan struct{})
		for i := range c.procs {
			wg.Go(func() {
				ready.Done()
				<-gate
				answers[i], errs[i] = c.do(ctx, i, http.MethodPost, "/api/memories/"+mem+"/feedback", reviewer.Key, body)
			})
		}
		ready.Wait()
		close(gate)
		wg.Wait()
		fresh := 0
		for i, a := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if a.status != http.StatusOK {
				t.Fatalf("round %d: process %d answered %d %s", r, i, a.status, a.body)
			}
			if string(a.body) != string(answers[0].body) {
				t.Errorf("round %d: process %d answered %s; process 0 %s", r, i, a.body, answers[0].body)
			}
			if a.header.Get("Idempotent-Replayed") != "true" {
				fresh++
			}
		}
		if fresh != 1 {
			t.Errorf("round %d: %d of %d answers were not replays; want 1", r, fresh, len(answers))
		}
		var requests, history int
		if err := c.sql.QueryRow(`SELECT count(*) FROM validation_requests WHERE idempotency_key = $1`, fmt.Sprint("round-", r)).Scan(&requests); err != nil {
			t.Fatal(err)
		}
		if err := c.sql.QueryRow(`SELECT count(*) FROM feedback_history h JOIN feedback f ON f.id = h.feedback_id
			JOIN memories m ON m.id = f.memory_id WHERE m.public_id = $1`, mem).Scan(&history); err != nil {
			t.Fatal(err)
		}
		if requests != 1 || history != 1 {
			t.Errorf("round %d: %d idempotency records and %d validation revisions; want 1 and 1", r, requests, history)
		}
	}
}

// testSkillHistory reads one skill's trust through every process at once,
// in several revisions of the subject, and checks that the history holds
// one row per revision and hour and that the day's counters counted each
// row once.
func testSkillHistory(t *testing.T, c *cluster, author agent, reviewers []agent) {
	const skill = "PostgreSQL"
	const revisions = 5
	ctx := context.Background()
	for r := range revisions {
		mem := c.publish(t, r%len(c.procs), author.Key, fmt.Sprintf(`{"category":"Databases","title":"Vacuum %d","content":"Autovacuum settings, %d.","appliesTo":{"skill":"%s"}}`, r, r, skill))
		for j, rv := range reviewers {
			c.call(t, (r+j)%len(c.procs), http.MethodGet, "/api/memories/"+mem, rv.Key, "")
			c.call(t, (r+j+1)%len(c.procs), http.MethodPost, "/api/memories/"+mem+"/feedback", rv.Key, `{"type":"corroborate"}`)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2*len(c.procs))
		for k := range errs {
			wg.Go(func() {
				res, err := c.do(ctx, k%len(c.procs), http.MethodGet, "/api/public/agents/"+author.ID+"/skills/"+url.PathEscape(skill)+"/trust", "", "")
				if err == nil && res.status != http.StatusOK {
					err = &statusError{res.status, string(res.body)}
				}
				errs[k] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var rows, keys int
	if err := c.sql.QueryRow(`SELECT count(*), count(DISTINCT (subject_id, skill, source_revision, hour)) FROM skill_trust_history`).Scan(&rows, &keys); err != nil {
		t.Fatal(err)
	}
	var generated int
	if err := c.sql.QueryRow(`SELECT coalesce(sum(value), 0) FROM network_metrics WHERE name = 'skill_assessments_generated'`).Scan(&generated); err != nil {
		t.Fatal(err)
	}
	if rows < revisions || rows != keys || generated != rows {
		t.Errorf("skill history: %d rows over %d keys, %d counted, after %d revisions; want one row per revision and hour, each counted once", rows, keys, generated, revisions)
	}
}
