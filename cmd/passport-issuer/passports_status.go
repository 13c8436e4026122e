package main

import (
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// passportStatusArgs are what revoke, suspend and reinstate take.
type passportStatusArgs struct {
	Hash   string `arg:"" name:"hash" placeholder:"HASH" help:"The passport's passportHash: 64 lower-case hex digits."`
	Reason string `required:"" help:"Why, for the audit log (1 to 1,000 characters)."`
}

type passportsRevokeCmd struct {
	passportStatusArgs `embed:""`
}

func (c *passportsRevokeCmd) Run(e *env, f *keyFlags) error {
	return c.set(e, f, issuer.PassportRevoked)
}

type passportsSuspendCmd struct {
	passportStatusArgs `embed:""`
}

func (c *passportsSuspendCmd) Run(e *env, f *keyFlags) error {
	return c.set(e, f, issuer.PassportSuspended)
}

type passportsReinstateCmd struct {
	passportStatusArgs `embed:""`
}

func (c *passportsReinstateCmd) Run(e *env, f *keyFlags) error {
	return c.set(e, f, issuer.PassportValid)
}

// set gives the passport the status to, in one audited transaction, and
// says what changed, or why nothing did.
func (c *passportStatusArgs) set(e *env, f *keyFlags, to issuer.PassportStatus) error {
	change, err := issuer.NewStatusChange(c.Hash, to, c.Reason)
	if err != nil {
		return cli.Usage(err)
	}
	var out issuer.StatusOutcome
	err = e.withAdmin(func(a *service.Admin) error {
		out, err = a.SetPassportStatus(e.ctx, change)
		return err
	})
	if err != nil {
		return err
	}
	where := fmt.Sprintf("entry %d of status list %s", out.Index, out.List)
	if uri, ok := service.StatusListURI(f.Issuer, out.List); ok {
		where += " (" + uri + ")"
	}
	if !out.Changed {
		fmt.Fprintf(e.stdout, "passport %s is already %s: nothing changed (%s)\n", change.PassportHash, out.To, where)
		return nil
	}
	fmt.Fprintf(e.stdout, "passport %s: %s -> %s, %s; the list served shows it within %v\n",
		change.PassportHash, out.From, out.To, where, service.StatusListDebounce)
	return nil
}
