// Package metrics exposes the issuer's operational figures to Prometheus.
//
// A [Metrics] owns its own registry: nothing is registered globally, so
// two servers in one process (or two tests) never share a counter. It
// observes requests for issuer/httpapi ([httpapi.RequestObserver]),
// validation submissions and the passport cache for issuer/service
// ([service.ValidationObserver], [service.PassportObserver]), and reads the
// database's pool statistics and the trust model's daily network metrics
// when scraped ([Metrics.WatchPool], [Metrics.WatchNetwork]), and, with a
// read replica, how the subjects read there fared ([Metrics.WatchReplica]). The Go
// runtime's and the process's own collectors are included.
//
// # Names
//
//	passportkit_http_requests_total{method,route,status}            counter
//	passportkit_http_request_duration_seconds{method,route,status}  histogram
//	passportkit_validation_submissions_total{kind,transport,outcome,code}  counter
//	passportkit_passports_issued_total{disclosure}                  counter
//	passportkit_passport_cache_lookups_total{entry,result}          counter
//	passportkit_db_open_connections{engine}                         gauge
//	passportkit_db_connections{engine,state}                        gauge (state in_use, idle)
//	passportkit_db_max_open_connections{engine}                     gauge
//	passportkit_db_waits_total{engine}                              counter
//	passportkit_db_wait_seconds_total{engine}                       counter
//	passportkit_db_closed_connections_total{engine,reason}          counter
//	passportkit_trust_network_today{metric}                         gauge
//	passportkit_trust_network_up                                    gauge
//	passportkit_replica_subjects_total{result}                      counter (result kept, again)
//	go_*, process_*                                                 runtime and process
//
// route is the registered route pattern ("/api/memories/{id}"), never a
// request's path, or "unmatched"; method is a standard method or "other":
// every label takes a bounded set of values. A validation's outcome is
// accepted, replayed, refused (code is the refusal's reason code) or
// failed (code internal or unavailable). A cache's hit ratio is
// result="hit" over all lookups of its entry.
package metrics

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/remnant/passportkit/internal/httpmetrics"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
)

const namespace = httpmetrics.Namespace

// ScrapeTimeout bounds one scrape: a slower one is answered 503, and the
// database reads of a scrape are cancelled after it.
const ScrapeTimeout = httpmetrics.ScrapeTimeout

// Metrics is one server's metrics and their registry. Its observer
// methods are safe for concurrent use.
type Metrics struct {
	reg         *prometheus.Registry
	log         *slog.Logger
	requests    *httpmetrics.Requests
	validations *prometheus.CounterVec
	issued      *prometheus.CounterVec
	cache       *prometheus.CounterVec
}

var (
	_ httpapi.RequestObserver    = (*Metrics)(nil)
	_ service.ValidationObserver = (*Metrics)(nil)
	_ service.PassportObserver   = (*Metrics)(nil)
)

// New returns metrics with a registry of their own, holding the Go runtime
// and process collectors. logger receives scrape failures; discarded when
// nil.
func New(logger *slog.Logger) *Metrics {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		reg:      reg,
		log:      logger,
		requests: httpmetrics.NewRequests(reg),
		validations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "validation_submissions_total",
			Help: "Validation submissions the service decided, by kind, transport, outcome (accepted, replayed, refused, failed) and reason code.",
		}, []string{"kind", "transport", "outcome", "code"}),
		issued: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "passports_issued_total",
			Help: "Passport bundles served, cached or freshly signed, by disclosure.",
		}, []string{"disclosure"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "passport_cache_lookups_total",
			Help: "Lookups of the passport cache, by entry (passport, skill) and result (hit, miss).",
		}, []string{"entry", "result"}),
	}
	m.reg.MustRegister(m.validations, m.issued, m.cache)
	// Series that exist from the start, so that rates and ratios are
	// defined before the first event.
	for _, d := range []issuing.Disclosure{issuing.DisclosePreviews, issuing.DiscloseAll, issuing.DiscloseNone} {
		m.issued.WithLabelValues(string(d))
	}
	for _, e := range []service.CacheEntry{service.CachePassport, service.CacheSkill} {
		m.cache.WithLabelValues(string(e), "hit")
		m.cache.WithLabelValues(string(e), "miss")
	}
	for _, k := range []service.ValidationKind{service.ValidationMemory, service.ValidationReceipt, service.ValidationOutcome} {
		for _, via := range []issuer.Transport{issuer.TransportHTTP, issuer.TransportMCP} {
			m.validations.WithLabelValues(string(k), string(via), "accepted", "")
		}
	}
	return m
}

// Handler serves the registry in the Prometheus text format. At most two
// scrapes run at once and each is bounded by [ScrapeTimeout]; a scrape
// that fails in part still answers what it gathered.
func (m *Metrics) Handler() http.Handler { return httpmetrics.Handler(m.reg, m.log) }

// ObserveRequest counts one answered request and its latency.
func (m *Metrics) ObserveRequest(method, route string, status int, elapsed time.Duration, written int64) {
	m.requests.ObserveRequest(method, route, status, elapsed, written)
}

// ObserveValidation counts one validation submission by its outcome.
func (m *Metrics) ObserveValidation(kind service.ValidationKind, via issuer.Transport, replayed bool, err error) {
	outcome, code := "accepted", ""
	switch {
	case err != nil:
		c := issuer.ErrorCode(err)
		code, outcome = string(c), "refused"
		if _, e := problem.Lookup(c); e.Status >= 500 {
			outcome = "failed"
		}
	case replayed:
		outcome = "replayed"
	}
	m.validations.WithLabelValues(string(kind), string(via), outcome, code).Inc()
}

// ObserveCacheLookup counts one lookup of the passport cache.
func (m *Metrics) ObserveCacheLookup(entry service.CacheEntry, hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cache.WithLabelValues(string(entry), result).Inc()
}

// ObserveIssued counts one passport bundle served.
func (m *Metrics) ObserveIssued(d issuing.Disclosure) {
	m.issued.WithLabelValues(string(d)).Inc()
}

// PoolStats gives a connection pool's statistics. *store.DB implements it.
type PoolStats interface {
	Stats() sql.DBStats
}

// WatchPool exposes pool's statistics, read at each scrape, under the
// label engine. Watch each pool once.
func (m *Metrics) WatchPool(engine string, pool PoolStats) {
	m.reg.MustRegister(newPoolCollector(engine, pool))
}

// NetworkSource reads one UTC day's network metric counters (SPEC.md
// §5.9) by name, the day written YYYY-MM-DD. *store.DB implements it.
type NetworkSource interface {
	NetworkMetrics(ctx context.Context, day string) (map[string]int64, error)
}

// WatchNetwork exposes the current UTC day's network metric counters,
// read from src at each scrape (one bounded read of at most
// len(service.MetricNames) rows), as passportkit_trust_network_today with
// the counter's name as label metric; a counter not yet bumped today is 0.
// now is the clock that says which day it is; time.Now when nil.
// passportkit_trust_network_up is 0 when the read failed.
func (m *Metrics) WatchNetwork(src NetworkSource, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	m.reg.MustRegister(&networkCollector{src: src, now: now, log: m.log})
}

// ReplicaSource counts the subjects read on a read replica: those kept as
// the replica read them, and those read again on the primary. *store.DB
// implements it.
type ReplicaSource interface {
	ReplicaSubjects() (kept, again int64)
}

// WatchReplica exposes src's counts, read at each scrape, as
// passportkit_replica_subjects_total with result kept or again: the share
// of again is the share of passports the replica's lag sent back to the
// primary.
func (m *Metrics) WatchReplica(src ReplicaSource) {
	m.reg.MustRegister(replicaCollector{src})
}

// replicaCollector reads a ReplicaSource at scrape time.
type replicaCollector struct{ src ReplicaSource }

var replicaSubjects = prometheus.NewDesc(prometheus.BuildFQName(namespace, "replica", "subjects_total"),
	"Subjects read on the read replica, by result: kept as the replica read them, or read again on the primary (the replica was behind).", []string{"result"}, nil)

func (c replicaCollector) Describe(ch chan<- *prometheus.Desc) { ch <- replicaSubjects }

func (c replicaCollector) Collect(ch chan<- prometheus.Metric) {
	kept, again := c.src.ReplicaSubjects()
	ch <- prometheus.MustNewConstMetric(replicaSubjects, prometheus.CounterValue, float64(kept), "kept")
	ch <- prometheus.MustNewConstMetric(replicaSubjects, prometheus.CounterValue, float64(again), "again")
}

// poolCollector reads a pool's statistics at scrape time.
type poolCollector struct {
	pool                                PoolStats
	maxOpen, open, conns, waits, waited *prometheus.Desc
	closed                              *prometheus.Desc
}

func newPoolCollector(engine string, pool PoolStats) *poolCollector {
	labels := prometheus.Labels{"engine": engine}
	desc := func(name, help string, variable ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(namespace, "db", name), help, variable, labels)
	}
	return &poolCollector{
		pool:    pool,
		maxOpen: desc("max_open_connections", "The pool's bound on open connections."),
		open:    desc("open_connections", "Connections open, in use or idle."),
		conns:   desc("connections", "Open connections by state (in_use, idle).", "state"),
		waits:   desc("waits_total", "Times a request waited for a free connection."),
		waited:  desc("wait_seconds_total", "Time spent waiting for a free connection."),
		closed:  desc("closed_connections_total", "Connections closed by the pool, by reason (max_idle, max_idle_time, max_lifetime).", "reason"),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.maxOpen, c.open, c.conns, c.waits, c.waited, c.closed} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stats()
	ch <- prometheus.MustNewConstMetric(c.maxOpen, prometheus.GaugeValue, float64(s.MaxOpenConnections))
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(s.OpenConnections))
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.InUse), "in_use")
	ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(s.Idle), "idle")
	ch <- prometheus.MustNewConstMetric(c.waits, prometheus.CounterValue, float64(s.WaitCount))
	ch <- prometheus.MustNewConstMetric(c.waited, prometheus.CounterValue, s.WaitDuration.Seconds())
	ch <- prometheus.MustNewConstMetric(c.closed, prometheus.CounterValue, float64(s.MaxIdleClosed), "max_idle")
	ch <- prometheus.MustNewConstMetric(c.closed, prometheus.CounterValue, float64(s.MaxIdleTimeClosed), "max_idle_time")
	ch <- prometheus.MustNewConstMetric(c.closed, prometheus.CounterValue, float64(s.MaxLifetimeClosed), "max_lifetime")
}

// networkCollector reads the day's network metrics at scrape time.
type networkCollector struct {
	src NetworkSource
	now func() time.Time
	log *slog.Logger
}

var (
	networkToday = prometheus.NewDesc(prometheus.BuildFQName(namespace, "trust_network", "today"),
		"The trust model's daily network counters (SPEC.md §5.9) for the current UTC day, by counter name.", []string{"metric"}, nil)
	networkUp = prometheus.NewDesc(prometheus.BuildFQName(namespace, "trust_network", "up"),
		"1 when the day's network counters were read at this scrape, 0 when the read failed.", nil, nil)
)

func (c *networkCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- networkToday
	ch <- networkUp
}

func (c *networkCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), ScrapeTimeout)
	defer cancel()
	day := c.now().UTC().Format(time.DateOnly)
	counts, err := c.src.NetworkMetrics(ctx, day)
	if err != nil {
		c.log.Error("metrics: read the network counters", "day", day, "err", err)
		ch <- prometheus.MustNewConstMetric(networkUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(networkUp, prometheus.GaugeValue, 1)
	for _, name := range service.MetricNames {
		ch <- prometheus.MustNewConstMetric(networkToday, prometheus.GaugeValue, float64(counts[name]), name)
	}
}
