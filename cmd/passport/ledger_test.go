package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/ledger"
)

// runLedger runs the passport command in process.
func runLedger(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestLedgerExitCodes(t *testing.T) {
	dir := filepath.Join("..", "..", "ledger", "testdata")
	example, findings := filepath.Join(dir, "example.md"), filepath.Join(dir, "findings.md")
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"clean check", []string{"ledger", "check", example, "--as-of", "2026-10-22"}, cli.ExitOK},
		{"warnings only", []string{"ledger", "check", example, "--as-of", "2027-01-01"}, cli.ExitOK},
		{"errors in the file", []string{"ledger", "check", findings, "--as-of", "2026-10-22"}, cli.ExitFailed},
		{"missing file", []string{"ledger", "check", filepath.Join(dir, "nope.md")}, cli.ExitUsage},
		{"bad as-of", []string{"ledger", "check", example, "--as-of", "2026-02-30"}, cli.ExitUsage},
		{"no counterparty", []string{"ledger", "score", example}, cli.ExitUsage},
		{"bad counterparty", []string{"ledger", "score", example, "--counterparty", "Shop"}, cli.ExitUsage},
		{"bad target", []string{"ledger", "path-to-tier", example, "--counterparty", "shop.example", "--target", "famous"}, cli.ExitUsage},
		{"bad prefer", []string{"ledger", "merge", example, findings, "--prefer", "c"}, cli.ExitUsage},
		{"both stdin", []string{"ledger", "merge", "-", "-", "--prefer", "a"}, cli.ExitUsage},
		{"score works", []string{"ledger", "score", example, "--counterparty", "shop.example", "--as-of", "2026-10-22"}, cli.ExitOK},
		{"curve needs figures", []string{"ledger", "decay-curve"}, cli.ExitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, out, errs := runLedger(t, "", c.args...); code != c.want {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.want, out, errs)
			}
		})
	}
}

func TestLedgerTooLargeInput(t *testing.T) {
	big := strings.Repeat("x", ledger.MaxBytes+1)
	code, _, errs := runLedger(t, big, "ledger", "parse", "-")
	if code != cli.ExitUsage || !strings.Contains(errs, "larger than") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestLedgerAsOfDefaultsToToday: without --as-of the commands read the
// file as of the local day.
func TestLedgerAsOfDefaultsToToday(t *testing.T) {
	before := ledger.DateOf(time.Now())
	code, out, errs := runLedger(t, "", "ledger", "template")
	after := ledger.DateOf(time.Now())
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "updated: "+before.String()) && !strings.Contains(out, "updated: "+after.String()) {
		t.Errorf("template is not dated today (%s):\n%s", before, out)
	}
}
