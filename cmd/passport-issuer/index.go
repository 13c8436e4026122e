package main

import (
	"fmt"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
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

// withDiscovery runs fn with the discovery use case over the database. It
// signs nothing: the keyring only names the issuer.
func (e *env) withDiscovery(f *keyFlags, fn func(*service.Discovery) error) error {
	return e.withStore(func(db *store.DB) error {
		ring, err := f.keyring(db)
		if err != nil {
			return err
		}
		sealer, err := cursorSealer(e.ctx, db)
		if err != nil {
			return err
		}
		passports := service.NewPassports(db, ring, service.PassportOptions{})
		return fn(service.NewDiscovery(db, passports, sealer, service.DiscoveryOptions{Logger: e.log}))
	})
}

type indexRebuildCmd struct {
	Workers int `default:"4" help:"Agents indexed at a time."`
}

func (c *indexRebuildCmd) Run(e *env, f *keyFlags) error {
	return e.withDiscovery(f, func(d *service.Discovery) error {
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
	})
}

type indexSyncCmd struct{}

func (c *indexSyncCmd) Run(e *env, f *keyFlags) error {
	return e.withDiscovery(f, func(d *service.Discovery) error {
		rep, err := d.Sync(e.ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "indexed %s\n", plural(rep.Indexed, "agent", "agents"))
		printIndexStatus(e, rep.Status)
		return nil
	})
}

type indexStatusCmd struct{}

func (c *indexStatusCmd) Run(e *env, f *keyFlags) error {
	return e.withDiscovery(f, func(d *service.Discovery) error {
		st, err := d.CheckPending(e.ctx)
		if err != nil {
			return err
		}
		printIndexStatus(e, st)
		return nil
	})
}

func printIndexStatus(e *env, st service.IndexStatus) {
	fmt.Fprintf(e.stdout, "%s re-indexing: %d changed since indexed, %d assessed before today\n",
		plural(int(st.Changed+st.Aged), "agent awaits", "agents await"), st.Changed, st.Aged)
}
