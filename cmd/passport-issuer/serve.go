package main

import (
	"context"
	"fmt"
	"time"

	"github.com/remnant/passportkit/internal/httpserve"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
)

// serveCmd runs the HTTP API and the MCP endpoint until interrupted.
type serveCmd struct {
	Addr  string  `env:"PASSPORT_ADDR" default:"127.0.0.1:8787" help:"Address to listen on."`
	Env   string  `name:"env" env:"PASSPORT_ENV" enum:"development,production" default:"development" help:"development applies pending migrations at start-up; production only verifies the schema and refuses to start on a mismatch."`
	Rate  float64 `env:"PASSPORT_RATE" default:"10" help:"Sustained requests per second per API key (and per client address for anonymous requests)."`
	Burst int     `env:"PASSPORT_BURST" default:"40" help:"Requests a key may make at once."`

	IndexPoll time.Duration `env:"PASSPORT_INDEX_POLL" default:"5s" help:"Time between two sweeps of the discovery indexer for subjects awaiting re-indexing (on PostgreSQL, notifications re-index changed subjects at once)."`

	keyFlags `embed:""`

	ReadHeaderTimeout time.Duration `env:"PASSPORT_READ_HEADER_TIMEOUT" default:"10s" help:"Time to read a request's line and headers."`
	BodyTimeout       time.Duration `env:"PASSPORT_BODY_TIMEOUT" default:"10s" help:"Time for a request body to arrive once its headers are read; a slower one is answered 408."`
	WriteTimeout      time.Duration `env:"PASSPORT_WRITE_TIMEOUT" default:"60s" help:"Time to handle a request and write its response, from the end of its headers."`
	IdleTimeout       time.Duration `env:"PASSPORT_IDLE_TIMEOUT" default:"2m" help:"Time a kept-alive connection may wait for its next request."`
	MaxHeaderBytes    int           `env:"PASSPORT_MAX_HEADER_BYTES" default:"16384" help:"Bytes of request line and headers; more is answered 431."`
}

// Help is the long help of serve: the fixed request bounds, which the
// README's "Limits and timeouts" repeats.
func (c *serveCmd) Help() string {
	return fmt.Sprintf(`Request bodies are bounded after gzip decompression: %d bytes for a publication, %d for a validation, %d for a consultation, %d for a moderation and %d for an MCP message; more is answered 413. Bodies must be application/json (charset utf-8 if named) and may be gzip-encoded; anything else is answered 415. Every error is an RFC 9457 problem detail. In-flight requests get %s to finish after a stop signal.`,
		issuer.MaxPublishBody, issuer.MaxFeedbackBody, issuer.MaxConsultationBody, issuer.MaxModerationBody, mcpserver.MaxMessage, shutdownGrace)
}

// shutdownGrace bounds how long in-flight requests may finish after a stop
// signal.
const shutdownGrace = 15 * time.Second

// limits are the connection bounds the flags set.
func (c *serveCmd) limits() httpserve.Limits {
	return httpserve.Limits{ReadHeaderTimeout: c.ReadHeaderTimeout, BodyTimeout: c.BodyTimeout,
		WriteTimeout: c.WriteTimeout, IdleTimeout: c.IdleTimeout, MaxHeaderBytes: c.MaxHeaderBytes}
}

// Validate refuses timeouts and header bounds that would disable a limit.
func (c *serveCmd) Validate() error { return c.limits().Validate() }

func (c *serveCmd) Run(e *env) error {
	db, err := e.connect()
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

	app := service.New(db, service.Options{})
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	sealer, err := cursorSealer(e.ctx, db)
	if err != nil {
		return err
	}
	discovery := service.NewDiscovery(db, passports, sealer, service.DiscoveryOptions{Logger: e.log})
	// Replicas on one PostgreSQL database free each other's cached
	// passports, and re-index the subject, as soon as a write commits.
	listenCtx, stopListening := context.WithCancel(e.ctx)
	indexer, indexed := c.startIndexer(listenCtx, e, discovery)
	listening := make(chan error, 1)
	go func() {
		listening <- db.ListenRevisions(listenCtx, func(id issuer.AgentID) { passports.Invalidate(id); indexer.Changed(id) })
	}()
	defer func() { stopListening(); <-listening; indexed() }()
	handler := httpapi.New(app, e.log, httpapi.Config{
		Keys:          ring,
		Passports:     passports,
		Agents:        discovery,
		RatePerSecond: c.Rate,
		Burst:         c.Burst,
		BodyTimeout:   c.BodyTimeout,
		MCP:           mcpserver.Handler(app, e.log, version()),
	})
	lim := c.limits()
	ln, err := lim.Listen(c.Addr)
	if err != nil {
		return err
	}
	e.log.Info("serving", "url", "http://"+ln.Addr().String(), "engine", db.Engine(), "env", c.Env)
	err = httpserve.Serve(e.ctx, lim.Server(e.ctx, handler), ln, shutdownGrace)
	if err == nil {
		e.log.Info("shut down")
	}
	return err
}
