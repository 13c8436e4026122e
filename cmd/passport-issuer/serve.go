package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
)

// serveCmd runs the HTTP API and the MCP endpoint until interrupted.
type serveCmd struct {
	Addr  string  `env:"PASSPORT_ADDR" default:"127.0.0.1:8787" help:"Address to listen on."`
	Env   string  `name:"env" env:"PASSPORT_ENV" enum:"development,production" default:"development" help:"development applies pending migrations at start-up; production only verifies the schema and refuses to start on a mismatch."`
	Rate  float64 `env:"PASSPORT_RATE" default:"10" help:"Sustained requests per second per API key."`
	Burst int     `env:"PASSPORT_BURST" default:"40" help:"Requests a key may make at once."`

	keyFlags `embed:""`
}

// shutdownGrace bounds how long in-flight requests may finish after a stop
// signal.
const shutdownGrace = 15 * time.Second

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
	handler := httpapi.New(app, e.log, httpapi.Config{
		Keys:          ring,
		RatePerSecond: c.Rate,
		Burst:         c.Burst,
		MCP:           mcpserver.Handler(app, e.log, version()),
	})
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(e.ctx) },
	}
	e.log.Info("serving", "url", "http://"+ln.Addr().String(), "engine", db.Engine(), "env", c.Env)

	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-e.ctx.Done():
	}
	e.log.Info("shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
