package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/verifier"
)

type serveCmd struct {
	Trust         string        `help:"Trust file naming the issuer and its keys." env:"PASSPORT_TRUST" required:"" placeholder:"FILE" type:"path"`
	Addr          string        `help:"Address to listen on." default:"127.0.0.1:8788"`
	Skew          time.Duration `help:"Clock skew tolerated on issuance and expiry." default:"5m"`
	MaxConcurrent int           `help:"Verifications run at once." default:"8"`
	Rate          float64       `help:"Requests per second per client address (bursts of twice that)." default:"20"`
}

func (c *serveCmd) Run(e *env) error {
	v, err := loadVerifier(e, c.Trust, c.Skew)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	srv := &http.Server{
		Handler:           verifier.NewHandler(v, verifier.HandlerConfig{MaxConcurrent: c.MaxConcurrent, RatePerClient: c.Rate, Logger: logger}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return cli.Usage(err)
	}
	fmt.Fprintf(e.stderr, "passport: verifying on http://%s (POST /v1/verify)\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-e.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
