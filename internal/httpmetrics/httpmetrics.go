// Package httpmetrics holds the Prometheus metrics every HTTP service of
// the project exposes alike (the issuer and passport-serve): the answered
// requests and their latency, and the bounded /metrics handler.
//
//	passportkit_http_requests_total{method,route,status}            counter
//	passportkit_http_request_duration_seconds{method,route,status}  histogram
//
// It links no database: the runtime and process collectors, whose package
// does, are the issuer's to add (issuer/metrics).
//
// route is a registered route pattern, never a request's path, or
// "unmatched"; method is a standard method or "other": every label takes
// a bounded set of values.
package httpmetrics

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric of the project.
const Namespace = "passportkit"

// ScrapeTimeout bounds one scrape: a slower one is answered 503.
const ScrapeTimeout = 5 * time.Second

// durationBuckets are the request latency buckets, in seconds: from half
// a millisecond (a cached read on loopback) to ten seconds.
var durationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Requests counts answered requests and their latency. Its method is safe
// for concurrent use.
type Requests struct {
	total    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewRequests registers the request metrics with reg.
func NewRequests(reg prometheus.Registerer) *Requests {
	r := &Requests{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time from a request's headers to the end of its answer, by method, route pattern and status.",
			Buckets: durationBuckets,
		}, []string{"method", "route", "status"}),
	}
	reg.MustRegister(r.total, r.duration)
	return r
}

// ObserveRequest counts one answered request and its latency.
func (r *Requests) ObserveRequest(method, route string, status int, elapsed time.Duration, _ int64) {
	code := strconv.Itoa(status)
	r.total.WithLabelValues(method, route, code).Inc()
	r.duration.WithLabelValues(method, route, code).Observe(elapsed.Seconds())
}

// Handler serves reg in the Prometheus text format. At most two scrapes
// run at once and each is bounded by [ScrapeTimeout]; a scrape that fails
// in part still answers what it gathered. log receives scrape failures.
func Handler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(log.Handler(), slog.LevelError),
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 2,
		Timeout:             ScrapeTimeout,
	})
}
