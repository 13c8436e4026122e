package main

import (
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
)

// maxCanonicalizeInput bounds the input of canonicalize.
const maxCanonicalizeInput = 16 << 20

type canonicalizeCmd struct {
	File string `arg:"" optional:"" default:"-" help:"JSON file, or - for standard input." placeholder:"FILE|-"`
}

func (c *canonicalizeCmd) Run(e *env) error {
	in, err := readInput(e, c.File, maxCanonicalizeInput)
	if err != nil {
		return err
	}
	if len(in) > maxCanonicalizeInput {
		return cli.Exit(cli.ExitFailed, fmt.Errorf("input larger than %d bytes", maxCanonicalizeInput))
	}
	out, err := passport.Canonicalize(in)
	if err != nil {
		return cli.Exit(cli.ExitFailed, err)
	}
	_, err = e.stdout.Write(out)
	return err
}
