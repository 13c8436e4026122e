// Command passport-issuer runs the passportkit issuer: the HTTP API and MCP
// endpoint for memories, consultations and validations, and the operator
// commands around them (migrations, operators, agents, moderation and
// reputation rebuilds).
//
// Every command takes --db (or PASSPORT_DB): a postgres:// URL selects
// PostgreSQL; anything else is the path of an embedded SQLite file,
// passportkit.db in the working directory by default.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
)

// commands is the command tree. Each command lives in its own file.
type commands struct {
	DB        string     `name:"db" env:"PASSPORT_DB" default:"${default_db}" placeholder:"URL" help:"Database: a postgres:// URL, or the path of a SQLite file."`
	LogLevel  slog.Level `name:"log-level" env:"PASSPORT_LOG_LEVEL" default:"info" help:"Log level: debug, info, warn or error."`
	LogFormat string     `name:"log-format" env:"PASSPORT_LOG_FORMAT" enum:"text,json" default:"text" help:"Log format: text (key=value) or json (one object per line)."`

	Serve      serveCmd      `cmd:"" help:"Serve the HTTP API and the MCP endpoint."`
	Demo       demoCmd       `cmd:"" help:"Build a synthetic world, issue and verify a passport from it, then serve."`
	Migrate    migrateCmd    `cmd:"" help:"Apply pending database migrations."`
	Operators  operatorsCmd  `cmd:"" help:"Manage operators, the known owners of agents."`
	Agents     agentsCmd     `cmd:"" help:"Manage agents and their API keys."`
	Memories   memoriesCmd   `cmd:"" help:"Moderate memories."`
	Reputation reputationCmd `cmd:"" help:"Maintain reputation aggregates."`
	Keys       keysCmd       `cmd:"" help:"Manage the issuer's signing keys and export its trust file."`
	Passports  passportsCmd  `cmd:"" help:"Issue passports offline; revoke, suspend and reinstate issued ones."`
	Index      indexCmd      `cmd:"" help:"Maintain the discovery index behind find_agents."`
	Version    versionCmd    `cmd:"" help:"Print the version."`
}

// env is what every command's Run receives.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	dbURL  string
	log    *slog.Logger
}

// connect opens the database named by --db as it is, reading from the
// replica at readURL when it is not empty (store.Options.ReadURL).
func (e *env) connect(readURL string) (*store.DB, error) {
	return store.Open(e.ctx, e.dbURL, store.Options{Logger: e.log, ReadURL: readURL})
}

// open opens the database named by --db and checks that its schema is the
// one this release expects, so that a command on an unmigrated database
// says what to do instead of failing on a missing table.
func (e *env) open() (*store.DB, error) {
	db, err := e.connect("")
	if err != nil {
		return nil, err
	}
	if err := db.CheckSchema(e.ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// withStore runs fn on the database named by --db, opened as open does,
// and closes it.
func (e *env) withStore(fn func(db *store.DB) error) error {
	db, err := e.open()
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// withAdmin runs fn with the operator's use cases over the database named
// by --db.
func (e *env) withAdmin(fn func(a *service.Admin) error) error {
	return e.withStore(func(db *store.DB) error { return fn(service.NewAdmin(db, service.AdminOptions{})) })
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args and runs the chosen command, returning the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var root commands
	return cli.Program{
		Name:        "passport-issuer",
		Description: "Run the passportkit issuer and administer its records.",
		Options:     []kong.Option{kong.Vars{"default_db": store.DefaultURL, "default_issuer": defaultIssuer}},
		Prepare: func(kctx *kong.Context) {
			opts := &slog.HandlerOptions{Level: root.LogLevel}
			var h slog.Handler = slog.NewTextHandler(stderr, opts)
			if root.LogFormat == "json" {
				h = slog.NewJSONHandler(stderr, opts)
			}
			log := slog.New(h)
			kctx.Bind(&env{ctx: ctx, stdout: stdout, stderr: stderr, dbURL: root.DB, log: log})
		},
		Describe: describe,
	}.Run(&root, args, stdout, stderr)
}

// describe returns the message of a refusal, or the whole error otherwise:
// on the operator's own terminal, internal detail helps.
func describe(err error) string {
	if e, ok := errors.AsType[*issuer.Error](err); ok && e.Err == nil {
		return fmt.Sprintf("%s (%s)", e.Message, e.Code)
	}
	return err.Error()
}
