// Command passport-serve answers POST /v1/verify and POST
// /v1/verify/presentation over HTTP (SPEC.md §11.5, §11.6): it verifies
// each bundle or presentation posted to it against one trust file, and,
// with --status-url, against the issuer's status lists, fetched over HTTP
// and kept for their ttl, until the process is interrupted.
//
// For its operators it answers GET /healthz and GET /metrics (Prometheus,
// the same request metrics as the issuer's), names every request with an
// X-Request-Id, and logs one line per request, as text or, with
// --log-format json, as one JSON object per line.
//
// It is a command of its own, not a subcommand of passport, so that
// passport, which third parties install to verify bundles, does not link
// net/http and crypto/tls: a process that only verifies starts faster
// without them.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/internal/httpmetrics"
	"github.com/remnant/passportkit/internal/httpserve"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
	"github.com/remnant/passportkit/verifier/verifierhttp"
)

// server is the command: its flags.
type server struct {
	Trust         string        `help:"Trust file naming the issuer and its keys." env:"PASSPORT_TRUST" required:"" placeholder:"FILE" type:"path"`
	Addr          string        `help:"Address to listen on." default:"127.0.0.1:8788"`
	Skew          time.Duration `help:"Clock skew tolerated on issuance and expiry." default:"5m"`
	MaxConcurrent int           `help:"Verifications run at once." default:"8"`
	Rate          float64       `help:"Requests per second per client address (bursts of twice that)." default:"20"`
	StatusURL     []string      `name:"status-url" sep:"none" placeholder:"URL" help:"A status list to fetch and apply, as a passport's status.status_list.uri names it; a URL ending in / allows every list under it. Repeatable. Without it the status check reports not_checked."`
	StatusTimeout time.Duration `help:"Time to fetch one status list." default:"5s"`
	LogFormat     string        `name:"log-format" env:"PASSPORT_LOG_FORMAT" enum:"text,json" default:"text" help:"Log format: text (key=value) or json (one object per line)."`

	ReadHeaderTimeout time.Duration `help:"Time to read a request's line and headers." default:"5s"`
	BodyTimeout       time.Duration `help:"Time for a bundle to arrive once the headers are read; a slower one is answered 408." default:"10s"`
	WriteTimeout      time.Duration `help:"Time to verify and write the response, from the end of the headers." default:"15s"`
	IdleTimeout       time.Duration `help:"Time a kept-alive connection may wait for its next request." default:"60s"`
	MaxHeaderBytes    int           `help:"Bytes of a request's head, counted exactly: the request line and the header lines with their line endings, and the empty line that ends them; more is answered 431." default:"16384"`
}

// env is what Run receives: the process's streams and a context cancelled
// on interrupt.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stderr io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args and serves, returning the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Program{
		Name:        "passport-serve",
		Description: "Verify bundles posted to POST /v1/verify, and presentations posted to POST /v1/verify/presentation, against a trust file.",
		Options:     []kong.Option{kong.Bind(&env{ctx: ctx, stdin: stdin, stderr: stderr})},
	}.Run(&server{}, args, stdout, stderr)
}

// Help is the long help: the fixed bounds, which docs/verifying.md's "Limits"
// repeats.
func (c *server) Help() string {
	return fmt.Sprintf(`A bundle is at most %d bytes (512 KiB), a presentation (POST /v1/verify/presentation) at most %d bytes (520 KiB), also after gzip decompression; more is answered 413, unread when its Content-Length says so (a client that sent Expect: 100-continue is never asked for it). Once a request is refused, what its client still sends is read and discarded for up to %s and %d MiB before the connection closes, so that the client reads the answer. A request waits at most 2s for a verification slot, then gets 503. Every error is an RFC 9457 problem detail.`, passport.MaxBundleSize, passport.MaxPresentationSize, httpserve.LingerTime, httpserve.LingerBytes>>20)
}

// limits are the connection bounds the flags set.
func (c *server) limits() httpserve.Limits {
	return httpserve.Limits{ReadHeaderTimeout: c.ReadHeaderTimeout, BodyTimeout: c.BodyTimeout,
		WriteTimeout: c.WriteTimeout, IdleTimeout: c.IdleTimeout, MaxHeaderBytes: c.MaxHeaderBytes}
}

// Validate refuses timeouts and header bounds that would disable a limit.
func (c *server) Validate() error { return c.limits().Validate() }

// Run serves until the process is interrupted.
func (c *server) Run(e *env) error {
	b, err := cli.ReadFile(e.stdin, c.Trust, verifier.MaxTrustFileSize)
	if err != nil {
		return err
	}
	trust, err := verifier.ParseTrust(b)
	if err != nil {
		return cli.Usage(fmt.Errorf("%s: %w", c.Trust, err))
	}
	v, err := verifier.New(trust, verifier.WithSkew(c.Skew))
	if err != nil {
		return cli.Usage(err)
	}
	var h slog.Handler = slog.NewTextHandler(e.stderr, nil)
	if c.LogFormat == "json" {
		h = slog.NewJSONHandler(e.stderr, nil)
	}
	logger := slog.New(h)
	reg := prometheus.NewRegistry() // its own: nothing is registered globally
	cfg := verifierhttp.Config{MaxConcurrent: c.MaxConcurrent, RatePerClient: c.Rate, BodyTimeout: c.BodyTimeout, Logger: logger,
		Observer: httpmetrics.NewRequests(reg), Metrics: httpmetrics.Handler(reg, logger)}
	if len(c.StatusURL) > 0 {
		if cfg.Status, err = verifierhttp.NewStatusFetcher(v, verifierhttp.StatusConfig{URLs: c.StatusURL, Timeout: c.StatusTimeout}); err != nil {
			return cli.Usage(err)
		}
	}
	lim := c.limits()
	srv := lim.Server(e.ctx, httpserve.Compress(verifierhttp.NewHandler(v, cfg)))
	srv.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	ln, err := lim.Listen(c.Addr)
	if err != nil {
		return cli.Usage(err)
	}
	logger.Info("serving", "url", "http://"+ln.Addr().String(), "routes", "POST /v1/verify, POST /v1/verify/presentation, GET /healthz, GET /metrics")
	err = httpserve.Serve(e.ctx, srv, ln, 10*time.Second)
	logger.Info("shut down")
	return err
}
