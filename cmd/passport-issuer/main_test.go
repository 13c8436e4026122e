package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"passport-issuer": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the command-line scenarios in testdata/script, each in
// its own directory with its own SQLite file.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("PASSPORT_LOG_LEVEL", "warn")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// jsonenv VAR FIELD sets VAR to a string field of the last
			// command's JSON output.
			"jsonenv": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: jsonenv VAR FIELD")
				}
				var v map[string]any
				if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
					ts.Fatalf("stdout is not a JSON object: %v", err)
				}
				s, ok := v[args[1]].(string)
				if !ok {
					ts.Fatalf("no string field %q in stdout", args[1])
				}
				ts.Setenv(args[0], s)
			},
		},
	})
}
