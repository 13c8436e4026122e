package main

import (
	"fmt"
	"runtime/debug"
)

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	_, err := fmt.Fprintf(e.stdout, "passport %s\n", v)
	return err
}
