package main

import (
	"fmt"
	"os"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
)

type presentCmd struct {
	Bundle   string `help:"The bundle to present, as the issuer served it: its passport names your holder key in cnf. - reads standard input." required:"" placeholder:"FILE|-"`
	Key      string `help:"Your holder key: a private JWK (Ed25519 or P-256), as passport keys generate writes it." required:"" placeholder:"FILE" type:"path"`
	Aud      string `help:"The identifier of the party you present to, as it gave it." required:"" placeholder:"AUDIENCE"`
	Nonce    string `help:"The nonce that party handed you for this presentation." required:"" placeholder:"N"`
	IssuedAt string `help:"The key binding's time (RFC 3339); default now." placeholder:"RFC3339"`
	Out      string `short:"o" help:"File to write; default standard output." placeholder:"FILE" type:"path"`
}

func (c *presentCmd) Run(e *env) error {
	key, err := loadPrivateKey(e, c.Key)
	if err != nil {
		return err
	}
	now := time.Now()
	if c.IssuedAt != "" {
		if now, err = time.Parse(time.RFC3339, c.IssuedAt); err != nil {
			return cli.Usage(fmt.Errorf("--issued-at: %w", err))
		}
	}
	bundle, err := readBounded(e, c.Bundle, passport.MaxBundleSize)
	if err != nil {
		return err
	}
	out, err := passport.Present(bundle, key, c.Aud, c.Nonce, now)
	if err != nil {
		return cli.Exit(cli.ExitFailed, err)
	}
	if c.Out == "" {
		_, err = e.stdout.Write(out)
		return err
	}
	return os.WriteFile(c.Out, out, 0o644)
}
