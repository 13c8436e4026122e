package main

import (
	"fmt"
	"os"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
)

// passportsCmd groups the passport commands.
type passportsCmd struct {
	keyFlags `embed:""`

	Issue     passportsIssueCmd     `cmd:"" help:"Issue an agent's passport offline, as GET /api/public/agents/{publicId}/passport does."`
	Revoke    passportsRevokeCmd    `cmd:"" help:"Revoke an issued passport, for good: its status list entry says revoked."`
	Suspend   passportsSuspendCmd   `cmd:"" help:"Suspend an issued passport until it is reinstated: its status list entry says suspended."`
	Reinstate passportsReinstateCmd `cmd:"" help:"Reinstate a suspended passport: its status list entry says valid again."`
}

// AfterApply makes the key flags available to the subcommands.
func (c *passportsCmd) AfterApply(kctx *kong.Context) error {
	kctx.Bind(&c.keyFlags)
	return nil
}

type passportsIssueCmd struct {
	Agent    string `arg:"" help:"The agent's public id (agt_…)." placeholder:"AGENT"`
	Disclose string `enum:"previews,all,none" default:"previews" help:"Which evidence records the bundle discloses: previews (those behind the source previews), all (every record; refused over 512 KiB) or none."`
	Out      string `short:"o" placeholder:"FILE" type:"path" help:"Write the bundle to FILE instead of standard output."`
	Evidence string `placeholder:"FILE" type:"path" help:"Also write the passport's complete evidence file to FILE, for passport verify --recompute --evidence."`
}

func (c *passportsIssueCmd) Run(e *env, f *keyFlags) error {
	id, err := issuer.ParseAgentID(c.Agent)
	if err != nil {
		return cli.Usage(err)
	}
	var is *issuing.Issued
	err = e.withStore(func(db *store.DB) error {
		r, err := f.keyring(db)
		if err != nil {
			return err
		}
		is, err = service.NewPassports(db, r, service.PassportOptions{}).Issue(e.ctx, id, issuing.Disclosure(c.Disclose))
		return err
	})
	if err != nil {
		return err
	}
	if c.Evidence != "" {
		if err := os.WriteFile(c.Evidence, is.EvidenceFile, 0o644); err != nil {
			return err
		}
	}
	if c.Out == "" {
		_, err := e.stdout.Write(is.Bundle)
		return err
	}
	if err := os.WriteFile(c.Out, is.Bundle, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "passport %s for %s: %d evidence records, %d skill passports, valid until %s; bundle written to %s\n",
		is.PassportHash, id, is.Passport.EvidenceCount, len(is.Passport.SkillPassports), is.Passport.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z"), c.Out)
	return nil
}
