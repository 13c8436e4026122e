package main

import (
	"fmt"
	"runtime/debug"
)

// versionCmd prints the module version this binary was built from.
type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "passport-issuer %s\n", version())
	return nil
}

// version returns the main module's version, or "devel" for a local build.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
