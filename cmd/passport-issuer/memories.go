package main

import (
	"cmp"
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
)

// memoriesCmd groups the memory commands.
type memoriesCmd struct {
	Moderate memoriesModerateCmd `cmd:"" help:"Change a memory's visibility; reputation already earned stays."`
	Sweep    memoriesSweepCmd    `cmd:"" help:"Evict memory and artifact bodies above a storage budget; rows, hashes and events stay."`
}

type memoriesSweepCmd struct {
	StorageBudget int64 `required:"" name:"storage-budget" help:"Bytes of memory contents and artifact bodies to keep."`
	Batch         int   `default:"500" help:"Bodies evicted per transaction (1 to 10000)."`
	DryRun        bool  `name:"dry-run" help:"Report what would be evicted; write nothing."`
}

func (c *memoriesSweepCmd) Run(e *env) error {
	o := service.SweepOptions{Budget: c.StorageBudget, Batch: c.Batch, DryRun: c.DryRun}
	if err := o.Check(); err != nil || c.Batch < 1 {
		return cli.Usage(cmp.Or(err, fmt.Errorf("the batch must be between 1 and %d", service.MaxSweepBatch)))
	}
	return e.withStore(func(db *store.DB) error {
		rep, err := db.SweepStorage(e.ctx, o)
		if err != nil {
			return err
		}
		verb := "evicted"
		if rep.DryRun {
			verb = "would evict"
		}
		fmt.Fprintf(e.stdout, "held %d bytes, budget %d: %s %d memories (%d bytes) and %d artifacts (%d bytes); held %d bytes\n",
			rep.HeldBefore, rep.Budget, verb, rep.Memories, rep.MemoryBytes, rep.Artifacts, rep.ArtifactBytes, rep.HeldAfter)
		if rep.OverBudget {
			fmt.Fprintln(e.stdout, "over budget: the rest are bodies the issuer keeps")
		}
		return nil
	})
}

type memoriesModerateCmd struct {
	Memory string `arg:"" help:"Memory ID (mem_...)."`
	Status string `required:"" enum:"active,quarantined,removed" help:"active, quarantined or removed."`
	Reason string `help:"Why, for the audit log."`
}

func (c *memoriesModerateCmd) Run(e *env) error {
	id, err := issuer.ParseMemoryID(c.Memory)
	if err != nil {
		return cli.Usage(err)
	}
	mod, err := issuer.NewModeration(c.Status, c.Reason)
	if err != nil {
		return cli.Usage(err)
	}
	return e.withAdmin(func(a *service.Admin) error {
		prev, err := a.ModerateMemory(e.ctx, id, mod)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "memory %s: %s -> %s\n", id, prev, mod.Status)
		return nil
	})
}
