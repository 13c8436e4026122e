package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
)

type inspectCmd struct {
	Bundle string `arg:"" help:"Bundle file, or - for standard input." placeholder:"BUNDLE|-"`
}

// Run prints a bundle's header and claims without verifying them, and says
// so first.
func (c *inspectCmd) Run(e *env) error {
	in, err := readInput(e, c.Bundle, passport.MaxBundleSize)
	if err != nil {
		return err
	}
	b, err := passport.ParseBundleUnverified(in)
	if err != nil {
		return cli.Exit(cli.ExitFailed, err)
	}
	fmt.Fprintln(e.stdout, "UNVERIFIED: nothing below has been checked. Use `passport verify` before relying on it.")
	fmt.Fprintf(e.stdout, "\nbundleVersion: %s\n", b.BundleVersion)
	parts := strings.Split(b.Credential, ".")
	if len(parts) == 3 {
		if h, err := base64.RawURLEncoding.DecodeString(parts[0]); err == nil {
			fmt.Fprintf(e.stdout, "\nprotected header (unverified):\n%s\n", indent(h))
		}
	} else {
		fmt.Fprintf(e.stdout, "\ncredential: not a compact JWS (%d parts)\n", len(parts))
	}
	fmt.Fprintf(e.stdout, "\nclaims (unverified snapshot):\n%s\n", indent(b.Snapshot))
	fmt.Fprintf(e.stdout, "\ndisclosed evidence (unverified): %d leaves\n", len(b.Evidence))
	for _, d := range b.Evidence {
		fmt.Fprintf(e.stdout, "  [%d] %s\n", d.Index, d.Leaf)
	}
	return nil
}

func indent(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "  ", "  "); err != nil {
		return "  " + string(b)
	}
	return "  " + out.String()
}
