package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/remnant/passportkit/internal/httpserve"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/internal/problem/problemhttp"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/metrics"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/reputation"
)

// serveCmd runs the HTTP API and the MCP endpoint until interrupted.
type serveCmd struct {
	Addr  string  `env:"PASSPORT_ADDR" default:"127.0.0.1:8787" help:"Address to listen on."`
	Env   string  `name:"env" env:"PASSPORT_ENV" enum:"development,production" default:"development" help:"development applies pending migrations at start-up; production only verifies the schema and refuses to start on a mismatch."`
	Rate  float64 `env:"PASSPORT_RATE" default:"10" help:"Sustained requests per second per API key (and per client address for anonymous requests)."`
	Burst int     `env:"PASSPORT_BURST" default:"40" help:"Requests a key may make at once."`

	ReadDB string `name:"read-db" env:"PASSPORT_READ_DB" default:"" placeholder:"URL" help:"A postgres:// URL of a streaming replica of --db (PostgreSQL only): discovery, search, the trust API and the assembly of passports read from it; writes and revision checks stay on --db, and a passport is never assembled from a replica behind the revision --db holds."`

	MetricsAddr string `name:"metrics-addr" env:"PASSPORT_METRICS_ADDR" default:"" placeholder:"ADDR" help:"Where GET /metrics (Prometheus, no authentication) is served: empty serves it on --addr with the API, off serves it nowhere, an address serves it there alone."`

	IndexPoll  time.Duration `env:"PASSPORT_INDEX_POLL" default:"5s" help:"Time between two sweeps of the discovery indexer for subjects awaiting re-indexing (on PostgreSQL, notifications re-index changed subjects at once)."`
	IndexShare float64       `env:"PASSPORT_INDEX_SHARE" default:"0.2" help:"Largest share of its time the discovery indexer spends indexing, above 0 and at most 1: it pauses after each subject so that a burst of writes is paid for by a lagging index, not by slower requests. 1 never pauses."`

	EvidenceObject   string `name:"evidence-object-factor" env:"PASSPORT_EVIDENCE_OBJECT_FACTOR" default:"1.5" help:"How much more a validation weighs in readers' trust when it carries an evidence object (SPEC.md §15.8), 1 to 10 with at most three decimals; recorded with each new position."`
	EvidenceArtifact string `name:"evidence-artifact-factor" env:"PASSPORT_EVIDENCE_ARTIFACT_FACTOR" default:"2" help:"How much more a validation weighs when its evidence object cites an uploaded artifact, from --evidence-object-factor to 10."`

	StorageBudget int64 `name:"storage-budget" env:"PASSPORT_STORAGE_BUDGET" default:"0" help:"Bytes of memory contents and artifact bodies to keep (SPEC.md §15.10); above it a sweep every 10 minutes evicts bodies in eviction order. 0 keeps everything."`

	keyFlags `embed:""`

	ReadHeaderTimeout time.Duration `env:"PASSPORT_READ_HEADER_TIMEOUT" default:"10s" help:"Time to read a request's line and headers."`
	BodyTimeout       time.Duration `env:"PASSPORT_BODY_TIMEOUT" default:"10s" help:"Time for a request body to arrive once its headers are read; a slower one is answered 408."`
	WriteTimeout      time.Duration `env:"PASSPORT_WRITE_TIMEOUT" default:"60s" help:"Time to handle a request and write its response, from the end of its headers."`
	IdleTimeout       time.Duration `env:"PASSPORT_IDLE_TIMEOUT" default:"2m" help:"Time a kept-alive connection may wait for its next request."`
	MaxHeaderBytes    int           `env:"PASSPORT_MAX_HEADER_BYTES" default:"16384" help:"Bytes of a request's head, counted exactly: the request line and the header lines with their line endings, and the empty line that ends them; more is answered 431."`
}

// Help is the long help of serve: the fixed request bounds, which the
// "Limits and timeouts" of docs/operating.md repeats.
func (c *serveCmd) Help() string {
	return fmt.Sprintf(`Request bodies are bounded after gzip decompression: %d bytes for a publication, %d for a validation, %d for a consultation, %d for a moderation, %d for a trust comparison, %d for an artifact and %d for an MCP message (%d for a call of verify_passport, %d for one of upload_artifact); more is answered 413. Bodies must be application/json (charset utf-8 if named; an artifact is any bytes) and may be gzip-encoded; anything else is answered 415. A body whose Content-Length is over its bound is refused unread: a client that sent Expect: 100-continue is answered 413, never 100 Continue. Once a request is refused, what its client still sends is read and discarded for up to %s and %d MiB before the connection closes, so that the client reads the answer. Every error is an RFC 9457 problem detail. In-flight requests get %s to finish after a stop signal.`,
		issuer.MaxPublishBody, issuer.MaxFeedbackBody, issuer.MaxConsultationBody, issuer.MaxModerationBody, issuer.MaxAssessBody, issuer.MaxArtifactBytes, mcpserver.MaxMessage, mcpserver.MaxVerifyMessage, mcpserver.MaxArtifactMessage, httpserve.LingerTime, httpserve.LingerBytes>>20, shutdownGrace)
}

// shutdownGrace bounds how long in-flight requests may finish after a stop
// signal.
const shutdownGrace = 15 * time.Second

// limits are the connection bounds the flags set.
func (c *serveCmd) limits() httpserve.Limits {
	return httpserve.Limits{ReadHeaderTimeout: c.ReadHeaderTimeout, BodyTimeout: c.BodyTimeout,
		WriteTimeout: c.WriteTimeout, IdleTimeout: c.IdleTimeout, MaxHeaderBytes: c.MaxHeaderBytes}
}

// metricsOff is the --metrics-addr that serves no metrics.
const metricsOff = "off"

// Validate refuses timeouts and header bounds that would disable a limit,
// an indexer share outside (0, 1], and a metrics address that is not one.
func (c *serveCmd) Validate() error {
	if err := c.limits().Validate(); err != nil {
		return err
	}
	if _, err := c.evidenceFactors(); err != nil {
		return err
	}
	if c.StorageBudget < 0 {
		return fmt.Errorf("--storage-budget must be 0 (keep everything) or a number of bytes, not %d", c.StorageBudget)
	}
	if !(c.IndexShare > 0 && c.IndexShare <= 1) {
		return fmt.Errorf("--index-share must be above 0 and at most 1, not %v", c.IndexShare)
	}
	switch c.MetricsAddr {
	case "", metricsOff:
	default:
		_, port, err := net.SplitHostPort(c.MetricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr must be empty, off, or host:port: %w", err)
		}
		if c.MetricsAddr == c.Addr && port != "0" {
			return errors.New("--metrics-addr must differ from --addr; leave it empty to serve /metrics on --addr")
		}
	}
	return nil
}

// evidenceFactors are the evidence weights the flags set.
func (c *serveCmd) evidenceFactors() (issuer.EvidenceFactors, error) {
	var f issuer.EvidenceFactors
	var err error
	if f.Object, err = reputation.ParseMilli(c.EvidenceObject); err != nil {
		return f, fmt.Errorf("--evidence-object-factor: %w", err)
	}
	if f.Artifact, err = reputation.ParseMilli(c.EvidenceArtifact); err != nil {
		return f, fmt.Errorf("--evidence-artifact-factor: %w", err)
	}
	if err := f.Check(); err != nil {
		return f, fmt.Errorf("--evidence-object-factor and --evidence-artifact-factor: %s", issuer.ErrorMessage(err))
	}
	return f, nil
}

func (c *serveCmd) Run(e *env) error { return c.serve(e, nil) }

// listeners are the addresses a server answers on: the API's, and the
// metrics' when --metrics-addr names an address of their own.
type listeners struct {
	api, metrics net.Listener
}

// listen opens the listeners the flags name.
func (c *serveCmd) listen() (*listeners, error) {
	lim := c.limits()
	ln, err := lim.Listen(c.Addr)
	if err != nil {
		return nil, err
	}
	ls := &listeners{api: ln}
	if c.MetricsAddr != "" && c.MetricsAddr != metricsOff {
		if ls.metrics, err = lim.Listen(c.MetricsAddr); err != nil {
			ln.Close()
			return nil, fmt.Errorf("--metrics-addr: %w", err)
		}
	}
	return ls, nil
}

// close closes the listeners that are open.
func (ls *listeners) close() {
	ls.api.Close()
	if ls.metrics != nil {
		ls.metrics.Close()
	}
}

// serve serves on ls, opened beforehand by the caller, or on listeners it
// opens once the database and the keys are ready when ls is nil. It closes
// the listeners it was given if it returns before serving.
func (c *serveCmd) serve(e *env, ls *listeners) (err error) {
	defer func() {
		if err != nil && ls != nil {
			ls.close()
		}
	}()
	db, err := e.connect(c.ReadDB)
	if err != nil {
		return err
	}
	defer db.Close()
	if c.Env == "production" {
		if err := db.CheckSchema(e.ctx); err != nil {
			e.log.Error("refusing to start in production: the schema does not match this release")
			return err
		}
	} else {
		applied, err := db.Migrate(e.ctx)
		if err != nil {
			return err
		}
		for _, m := range applied {
			e.log.Info("applied migration", "version", m.Version, "name", m.Name)
		}
	}
	ring, err := c.startKeys(e, db)
	if err != nil {
		return err
	}

	met := metrics.New(e.log)
	met.WatchPool(string(db.Engine()), db)
	met.WatchNetwork(db, nil)
	if c.ReadDB != "" {
		met.WatchReplica(db)
	}
	sealer, err := cursorSealer(e.ctx, db)
	if err != nil {
		return err
	}
	evidence, err := c.evidenceFactors()
	if err != nil {
		return err
	}
	app := service.New(db, service.Options{Observer: met, Cursors: sealer, Issuer: ring.Issuer(), Evidence: evidence})
	passports := service.NewPassports(db, ring, service.PassportOptions{Observer: met})
	discovery := service.NewDiscovery(db, passports, sealer, service.DiscoveryOptions{Logger: e.log})
	// Replicas on one PostgreSQL database free each other's cached
	// passports, and re-index the subject, as soon as a write commits; a
	// key change frees every cached passport (and sweeps the index, which
	// finds nothing to do: it holds no signature).
	listenCtx, stopListening := context.WithCancel(e.ctx)
	indexer, indexed := c.startIndexer(listenCtx, e, discovery)
	listening := make(chan error, 1)
	go func() {
		listening <- db.ListenRevisions(listenCtx, func(id issuer.AgentID) { passports.Invalidate(id); indexer.Changed(id); app.MemoriesChanged() })
	}()
	defer func() { stopListening(); <-listening; indexed() }()
	trust, err := service.NewTrust(passports, db, service.TrustOptions{Cursors: sealer})
	if err != nil {
		return err
	}
	pages, err := web.New(web.Config{Profiles: app, Passports: passports, Trust: trust, Keys: ring, Finder: discovery,
		BodyTimeout: c.BodyTimeout, Logger: e.log})
	if err != nil {
		return err
	}
	cfg := httpapi.Config{
		Keys:          ring,
		Passports:     passports,
		Trust:         trust,
		Pages:         pages,
		Agents:        discovery,
		StatusLists:   service.NewStatusLists(db, ring, service.StatusListOptions{}),
		RatePerSecond: c.Rate,
		Burst:         c.Burst,
		BodyTimeout:   c.BodyTimeout,
		MCP: mcpserver.Handler(app, e.log, version(),
			mcpserver.WithPassports(passports), mcpserver.WithTrust(ring), mcpserver.WithTrustAPI(trust),
			mcpserver.WithDiscovery(discovery), mcpserver.WithBodyTimeout(c.BodyTimeout)),
		Observer: met,
	}
	if c.MetricsAddr == "" {
		cfg.Metrics = met.Handler()
	}
	handler := httpapi.New(app, e.log, cfg)
	if ls == nil {
		if ls, err = c.listen(); err != nil {
			return err
		}
	}
	lim, ln, mln := c.limits(), ls.api, ls.metrics
	ls = nil // served from here on: Serve closes them
	g, ctx := errgroup.WithContext(e.ctx)
	if mln != nil {
		// Logged before "serving", which tells a watcher that every
		// address is listening.
		e.log.Info("serving metrics", "url", "http://"+mln.Addr().String()+"/metrics")
	}
	e.log.Info("serving", "url", "http://"+ln.Addr().String(), "engine", db.Engine(), "env", c.Env)
	// What net/http logs itself (a failed accept, a misbehaving handler)
	// goes through the same log, so that with --log-format json every line
	// is JSON.
	server := func(h http.Handler) *http.Server {
		srv := lim.Server(e.ctx, h)
		srv.ErrorLog = slog.NewLogLogger(e.log.Handler(), slog.LevelWarn)
		return srv
	}
	g.Go(func() error { return httpserve.Serve(ctx, server(handler), ln, shutdownGrace) })
	if mln != nil {
		g.Go(func() error {
			return httpserve.Serve(ctx, server(metricsOnly(met.Handler())), mln, shutdownGrace)
		})
	}
	if c.StorageBudget > 0 {
		g.Go(func() error { sweepStorage(ctx, e.log, db, c.StorageBudget); return nil })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	e.log.Info("shut down")
	return nil
}

// metricsOnly serves metrics at GET /metrics of a listener of its own;
// anything else is a 404 as problem details.
func metricsOnly(metrics http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			problemhttp.Write(w, problem.New(problem.NotFound, "this address serves only GET /metrics", r.URL.Path))
			return
		}
		metrics.ServeHTTP(w, r)
	})
}

// sweepInterval is how often serve sweeps storage under --storage-budget.
const sweepInterval = 10 * time.Minute

// sweepStorage sweeps db to budget at start and every sweepInterval until
// ctx ends; a failed sweep is logged and tried again at the next tick.
func sweepStorage(ctx context.Context, log *slog.Logger, db service.StorageSweeper, budget int64) {
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		rep, err := db.SweepStorage(ctx, service.SweepOptions{Budget: budget})
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Error("storage sweep", "err", err)
		case rep.Memories+rep.Artifacts > 0 || rep.OverBudget:
			log.Info("storage sweep", "held", rep.HeldAfter, "budget", budget, "memories", rep.Memories,
				"artifacts", rep.Artifacts, "overBudget", rep.OverBudget)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
