package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/internal/httpserve"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

type serveCmd struct {
	Trust         string        `help:"Trust file naming the issuer and its keys." env:"PASSPORT_TRUST" required:"" placeholder:"FILE" type:"path"`
	Addr          string        `help:"Address to listen on." default:"127.0.0.1:8788"`
	Skew          time.Duration `help:"Clock skew tolerated on issuance and expiry." default:"5m"`
	MaxConcurrent int           `help:"Verifications run at once." default:"8"`
	Rate          float64       `help:"Requests per second per client address (bursts of twice that)." default:"20"`

	ReadHeaderTimeout time.Duration `help:"Time to read a request's line and headers." default:"5s"`
	BodyTimeout       time.Duration `help:"Time for a bundle to arrive once the headers are read; a slower one is answered 408." default:"10s"`
	WriteTimeout      time.Duration `help:"Time to verify and write the response, from the end of the headers." default:"15s"`
	IdleTimeout       time.Duration `help:"Time a kept-alive connection may wait for its next request." default:"60s"`
	MaxHeaderBytes    int           `help:"Bytes of request line and headers; more is answered 431." default:"16384"`
}

// Help is the long help of serve: the fixed bounds, which the README's
// "Limits" repeats.
func (c *serveCmd) Help() string {
	return fmt.Sprintf(`A bundle is at most %d bytes (512 KiB), also after gzip decompression; more is answered 413. A request waits at most 2s for a verification slot, then gets 503. Every error is an RFC 9457 problem detail.`, passport.MaxBundleSize)
}

// limits are the connection bounds the flags set.
func (c *serveCmd) limits() httpserve.Limits {
	return httpserve.Limits{ReadHeaderTimeout: c.ReadHeaderTimeout, BodyTimeout: c.BodyTimeout,
		WriteTimeout: c.WriteTimeout, IdleTimeout: c.IdleTimeout, MaxHeaderBytes: c.MaxHeaderBytes}
}

// Validate refuses timeouts and header bounds that would disable a limit.
func (c *serveCmd) Validate() error { return c.limits().Validate() }

func (c *serveCmd) Run(e *env) error {
	v, err := loadVerifier(e, c.Trust, c.Skew)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	lim := c.limits()
	srv := lim.Server(e.ctx, verifier.NewHandler(v, verifier.HandlerConfig{
		MaxConcurrent: c.MaxConcurrent, RatePerClient: c.Rate, BodyTimeout: c.BodyTimeout, Logger: logger}))
	srv.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	ln, err := lim.Listen(c.Addr)
	if err != nil {
		return cli.Usage(err)
	}
	fmt.Fprintf(e.stderr, "passport: verifying on http://%s (POST /v1/verify)\n", ln.Addr())
	return httpserve.Serve(e.ctx, srv, ln, 10*time.Second)
}
