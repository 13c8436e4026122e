package multiproc

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkMultiProcess measures validation submissions and passport
// reads over HTTP, sent round-robin to 1, 2 and 4 serve processes over one
// PostgreSQL database by 8 clients. Each client is an evaluator with its
// own API key alternating the type of its position on each memory of 8
// authors (every submission replaces a position); readers read the
// authors' passports. Besides the rate and the 99th-percentile latency it
// reports, over the run, the CPU used by this database's backends
// (db-cores and db-ms/op, from /proc of the backends pg_stat_activity
// lists) and by the issuer processes (issuer-cores and issuer-ms/op), the
// database's share of the two, and the rate against the same operation on
// one process in the same run (of-1proc). From the database's statistics
// it reports transactions committed and discovery index entries written
// per operation (commits/op, index-writes/op). A last run restarts the
// four processes with --index-share 0.05.
func BenchmarkMultiProcess(b *testing.B) {
	const clients, authors, perAuthor = 8, 8, 8
	c := newCluster(b)
	c.start(1)
	var writers, evaluators []agent
	for i := range authors {
		writers = append(writers, c.createAgent(b, fmt.Sprint("Author ", i)))
	}
	for i := range clients {
		evaluators = append(evaluators, c.createAgent(b, fmt.Sprint("Evaluator ", i)))
	}
	var memories []string
	for i, a := range writers {
		for j := range perAuthor {
			memories = append(memories, c.publish(b, 0, a.Key, fmt.Sprintf(`{"category":"Bench %d","title":"Finding %d","content":"What was found."}`, i, j)))
		}
	}
	// Every evaluator retrieves every memory, as validating requires.
	if err := parallel(clients, len(memories)*clients, func(n int) error {
		_, err := c.expect(0, http.MethodGet, "/api/memories/"+memories[n%len(memories)], evaluators[n/len(memories)].Key, "")
		return err
	}); err != nil {
		b.Fatal(err)
	}

	baseline := map[string]float64{}
	// The last run is four processes again, each indexing with a quarter
	// of the default share of its time, so that together they index as
	// much as one.
	for _, run := range []struct {
		procs int
		share string
	}{{1, ""}, {2, ""}, {4, ""}, {4, "0.05"}} {
		procs, name := run.procs, fmt.Sprintf("procs=%d", run.procs)
		if run.share != "" {
			c.stopAll()
			c.serveFlags = []string{"--index-share", run.share}
			name += "/index-share=" + run.share
		}
		c.start(procs - len(c.procs))
		for _, op := range []string{"submit", "read"} {
			b.Run(name+"/"+op, func(b *testing.B) {
				rate := c.drive(b, clients, func(client, n int) (string, string, string, string) {
					if op == "read" {
						return http.MethodGet, "/api/public/agents/" + writers[n%len(writers)].ID + "/passport", "", ""
					}
					typ := "corroborate"
					if (n/len(memories))%2 == 1 {
						typ = "contradict"
					}
					return http.MethodPost, "/api/memories/" + memories[n%len(memories)] + "/feedback", evaluators[client].Key, `{"type":"` + typ + `"}`
				})
				if procs == 1 {
					baseline[op] = rate
				}
				if base := baseline[op]; base > 0 {
					b.ReportMetric(rate/base, "of-1proc")
				}
			})
		}
	}
}

// parallel runs f(0) … f(n-1) on workers goroutines and returns the first
// error.
func parallel(workers, n int, f func(n int) error) error {
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n && failed.Load() == nil; i = int(next.Add(1)) - 1 {
				if err := f(i); err != nil {
					failed.CompareAndSwap(nil, err)
				}
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return err
	}
	return nil
}

// expect sends a request to process i and returns the answer, or an error
// for any answer but a success.
func (c *cluster) expect(i int, method, path, key, body string) (response, error) {
	r, err := c.do(context.Background(), i, method, path, key, body)
	if err == nil && r.status != http.StatusOK && r.status != http.StatusCreated {
		err = fmt.Errorf("%s %s on process %d: %w", method, path, i, &statusError{r.status, string(r.body)})
	}
	return r, err
}

// drive sends b.N requests from clients concurrent clients, each sending
// its requests to the processes in turn, request(client, n) giving the
// client's nth request; it reports the rate, the 99th-percentile latency
// and the CPU the database and the issuer processes used, and returns the
// rate.
func (c *cluster) drive(b *testing.B, clients int, request func(client, n int) (method, path, key, body string)) float64 {
	var next atomic.Int64
	latencies := make([][]time.Duration, clients)
	var failed atomic.Value
	var wg sync.WaitGroup
	cpu0 := c.cpu(b)
	db0 := c.dbCounters(b)
	b.ResetTimer()
	start := time.Now()
	for cl := range clients {
		wg.Go(func() {
			for n := cl; next.Add(1) <= int64(b.N); n++ {
				method, path, key, body := request(cl, n)
				t0 := time.Now()
				if _, err := c.expect(n%len(c.procs), method, path, key, body); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
				latencies[cl] = append(latencies[cl], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	used := c.cpu(b).since(cpu0)
	// Backends report their statistics at most once a second.
	time.Sleep(1500 * time.Millisecond)
	db1 := c.dbCounters(b)
	b.ReportMetric(float64(db1.indexWrites-db0.indexWrites)/float64(b.N), "index-writes/op")
	b.ReportMetric(float64(db1.commits-db0.commits)/float64(b.N), "commits/op")
	all := slices.Concat(latencies...)
	slices.Sort(all)
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "ops/s")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(used.db.Seconds()/elapsed.Seconds(), "db-cores")
	b.ReportMetric(used.issuers.Seconds()/elapsed.Seconds(), "issuer-cores")
	b.ReportMetric(float64(used.db.Microseconds())/1000/float64(b.N), "db-ms/op")
	b.ReportMetric(float64(used.issuers.Microseconds())/1000/float64(b.N), "issuer-ms/op")
	if total := used.db + used.issuers; total > 0 {
		b.ReportMetric(float64(used.db)/float64(total), "db-share")
	}
	return rate
}

// dbCounters are the database's cumulative statistics: transactions
// committed and index entries written (updates of discovery_subjects).
type dbCounters struct{ commits, indexWrites int64 }

// dbCounters reads the database's statistics.
func (c *cluster) dbCounters(b *testing.B) dbCounters {
	b.Helper()
	var n dbCounters
	if err := c.sql.QueryRow(`SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
		(SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'discovery_subjects')`).Scan(&n.commits, &n.indexWrites); err != nil {
		b.Fatal(err)
	}
	return n
}

// cpuSample is the CPU time used so far by the database's backends, by
// pid, and by the issuer processes together.
type cpuSample struct {
	backends map[int]time.Duration
	issuers  time.Duration
}

// cpuUsed is CPU time used between two samples.
type cpuUsed struct{ db, issuers time.Duration }

// cpu samples the CPU time of the backends serving this database (those
// pg_stat_activity lists now; the server runs on this host) and of the
// cluster's processes.
func (c *cluster) cpu(b *testing.B) cpuSample {
	b.Helper()
	rows, err := c.sql.Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	s := cpuSample{backends: map[int]time.Duration{}}
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		if t, ok := processCPU(pid); ok {
			s.backends[pid] = t
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	for _, p := range c.procs {
		if t, ok := processCPU(p.cmd.Process.Pid); ok {
			s.issuers += t
		}
	}
	return s
}

// since is the CPU used from s0 to s: a backend new in s counts whole; one
// gone by s is not counted (pools keep their connections, so few go).
func (s cpuSample) since(s0 cpuSample) cpuUsed {
	var u cpuUsed
	for pid, t := range s.backends {
		u.db += t - s0.backends[pid]
	}
	u.issuers = s.issuers - s0.issuers
	return u
}

// clockTick is the unit of /proc/<pid>/stat's times: USER_HZ, 100 on
// Linux.
const clockTick = 10 * time.Millisecond

// processCPU returns the user and system CPU time process pid has used,
// from /proc/<pid>/stat; false when it cannot be read.
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses and may
	// hold spaces: state is the first, utime the 12th, stime the 13th.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(user+sys) * clockTick, true
}
