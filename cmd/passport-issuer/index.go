package main

import (
	"fmt"
	"time"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/issuer/service"
)

// indexCmd groups the commands of the discovery index.
type indexCmd struct {
	keyFlags `embed:""`

	Rebuild indexRebuildCmd `cmd:"" help:"Recompute every agent's discovery index entry from its records."`
	Sync    indexSyncCmd    `cmd:"" help:"Index the agents awaiting re-indexing once, as the indexer of serve does on each sweep."`
	Status  indexStatusCmd  `cmd:"" help:"Count the agents awaiting re-indexing."`
}

// AfterApply makes the key flags available to the subcommands.
func (c *indexCmd) AfterApply(kctx *kong.Context) error {
	kctx.Bind(&c.keyFlags)
	return nil
}

// discovery opens the database and the discovery use case over it. It
// signs nothing: the keyring only names the issuer.
func (e *env) discovery(f *keyFlags) (*service.Discovery, func(), error) {
	db, err := e.open()
	if err != nil {
		return nil, nil, err
	}
	ring, err := f.keyring(db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	sealer, err := cursorSealer(e.ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	return service.NewDiscovery(db, passports, sealer, service.DiscoveryOptions{Logger: e.log}), func() { db.Close() }, nil
}

type indexRebuildCmd struct {
	Workers int `default:"4" help:"Agents indexed at a time."`
}

func (c *indexRebuildCmd) Run(e *env, f *keyFlags) error {
	d, done, err := e.discovery(f)
	if err != nil {
		return err
	}
	defer done()
	rep, err := d.Rebuild(e.ctx, c.Workers, func(n int) { e.log.Debug("index rebuild", "agents", n) })
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "rebuilt the entries of %s", plural(rep.Indexed, "agent", "agents"))
	if rep.Skipped > 0 {
		fmt.Fprintf(e.stdout, " (%d changed meanwhile and await re-indexing)", rep.Skipped)
	}
	fmt.Fprintln(e.stdout)
	printIndexStatus(e, rep.Status)
	return nil
}

type indexSyncCmd struct{}

func (c *indexSyncCmd) Run(e *env, f *keyFlags) error {
	d, done, err := e.discovery(f)
	if err != nil {
		return err
	}
	defer done()
	rep, err := d.Sync(e.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "indexed %s\n", plural(rep.Indexed, "agent", "agents"))
	printIndexStatus(e, rep.Status)
	return nil
}

type indexStatusCmd struct{}

func (c *indexStatusCmd) Run(e *env) error {
	db, err := e.open()
	if err != nil {
		return err
	}
	defer db.Close()
	now := time.Now().UTC()
	st, err := db.CheckPending(e.ctx, calendar.Of(now).String(), now)
	if err != nil {
		return err
	}
	printIndexStatus(e, st)
	return nil
}

func printIndexStatus(e *env, st service.IndexStatus) {
	fmt.Fprintf(e.stdout, "%s re-indexing: %d changed since indexed, %d assessed before today\n",
		plural(int(st.Changed+st.Aged), "agent awaits", "agents await"), st.Changed, st.Aged)
}
