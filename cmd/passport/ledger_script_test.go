package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/ledger")

// TestLedgerScripts runs the end-to-end scripts for "passport ledger" in
// testdata/ledger. Each starts with the ledger test files in its work
// directory; go test -update rewrites the expected output in the scripts.
func TestLedgerScripts(t *testing.T) {
	files, err := filepath.Glob("../../ledger/testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("ledger test files: %v", err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/ledger",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(env.WorkDir, filepath.Base(f)), b, 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	})
}
