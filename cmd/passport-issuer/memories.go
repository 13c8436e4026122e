package main

import (
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// memoriesCmd groups the memory commands.
type memoriesCmd struct {
	Moderate memoriesModerateCmd `cmd:"" help:"Change a memory's visibility; reputation already earned stays."`
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
