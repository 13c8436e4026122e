package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		{"clean check", []string{"ledger", "check", example, "--as-of", "2026-10-22"}, exitOK},
		{"warnings only", []string{"ledger", "check", example, "--as-of", "2027-01-01"}, exitOK},
		{"errors in the file", []string{"ledger", "check", findings, "--as-of", "2026-10-22"}, exitFailed},
		{"missing file", []string{"ledger", "check", filepath.Join(dir, "nope.md")}, exitUsage},
		{"bad as-of", []string{"ledger", "check", example, "--as-of", "2026-02-30"}, exitUsage},
		{"no counterparty", []string{"ledger", "score", example}, exitUsage},
		{"bad counterparty", []string{"ledger", "score", example, "--counterparty", "Shop"}, exitUsage},
		{"bad target", []string{"ledger", "path-to-tier", example, "--counterparty", "shop.example", "--target", "famous"}, exitUsage},
		{"bad prefer", []string{"ledger", "merge", example, findings, "--prefer", "c"}, exitUsage},
		{"both stdin", []string{"ledger", "merge", "-", "-", "--prefer", "a"}, exitUsage},
		{"score works", []string{"ledger", "score", example, "--counterparty", "shop.example", "--as-of", "2026-10-22"}, exitOK},
		{"curve needs figures", []string{"ledger", "decay-curve"}, exitUsage},
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
	if code != exitUsage || !strings.Contains(errs, "larger than") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestLedgerAsOfDefaultsToToday: without --as-of the commands read the
// file as of the local day.
func TestLedgerAsOfDefaultsToToday(t *testing.T) {
	before := ledger.DateOf(time.Now())
	code, out, errs := runLedger(t, "", "ledger", "template")
	after := ledger.DateOf(time.Now())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "updated: "+before.String()) && !strings.Contains(out, "updated: "+after.String()) {
		t.Errorf("template is not dated today (%s):\n%s", before, out)
	}
}
