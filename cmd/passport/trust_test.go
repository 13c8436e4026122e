package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/cli"
	vectors "github.com/remnant/passportkit/vectors/trustgraph"
)

var trustLinePattern = regexp.MustCompile(`: line ([0-9]+): `)

// TestTrustVectors runs every trustgraph vector through passport trust:
// propagate, global and grounded cases as flags and files, and the signal
// cases by feeding the case file in as it stands.
func TestTrustVectors(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ran := 0
	for _, c := range cases {
		var args []string
		switch c.Kind {
		case vectors.KindPropagate, vectors.KindGlobal:
			file := filepath.Join(dir, c.Name+".csv")
			if err := os.WriteFile(file, []byte(c.Edges), 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"trust", "propagate", "--edges", file, "--json"}
			if c.Kind == vectors.KindGlobal {
				args = append(args, "--global", "--alpha", strconv.FormatFloat(*c.Alpha, 'g', -1, 64))
				if c.PreTrust != nil {
					pre := filepath.Join(dir, c.Name+".pre.json")
					b, _ := json.Marshal(c.PreTrust)
					if err := os.WriteFile(pre, b, 0o644); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--pre-trust", pre)
				}
			} else if len(c.TrustSet) > 0 {
				args = append(args, "--trust-set", strings.Join(c.TrustSet, ","))
			}
			if c.Damping != nil {
				args = append(args, "--damping="+strconv.FormatFloat(*c.Damping, 'g', -1, 64))
			}
			if c.Depth != nil {
				args = append(args, "--depth", strconv.Itoa(*c.Depth))
			}
		case vectors.KindGrounded:
			file := filepath.Join(dir, c.Name+".json")
			if err := os.WriteFile(file, c.Graph, 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"trust", "grounded", "--graph", file, "--json"}
			if c.Depth != nil {
				args = append(args, "--depth", strconv.Itoa(*c.Depth))
			}
			if c.Factor != nil {
				args = append(args, "--factor="+strconv.FormatFloat(*c.Factor, 'g', -1, 64))
			}
		case vectors.KindFloor, vectors.KindDecay, vectors.KindClock, vectors.KindGroups, vectors.KindStatus:
			b, err := fs.ReadFile(vectors.FS(), "cases/"+c.Name+".json")
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, c.Name+".json")
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"trust", "signal", file, "--json"}
		default:
			t.Fatalf("%s: no command runs kind %q", c.Name, c.Kind)
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, args...)
			if c.Fail() {
				m := reasonPattern.FindStringSubmatch(stderr)
				if code != cli.ExitUsage || m == nil {
					t.Fatalf("exit %d, stderr %q; want exit %d with a reason", code, stderr, cli.ExitUsage)
				}
				if err := vectors.CheckError(c.Expect, m[1]); err != nil {
					t.Fatal(err)
				}
				line := 0
				if m := trustLinePattern.FindStringSubmatch(stderr); m != nil {
					line, _ = strconv.Atoi(m[1])
				}
				if err := vectors.CheckLine(c.Expect, line); err != nil {
					t.Fatalf("%v: %s", err, stderr)
				}
				return
			}
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if err := vectors.Check(c.Expect, []byte(stdout)); err != nil {
				t.Errorf("%s: %v", c.Rule, err)
			}
		})
	}
	if ran != len(cases) || ran < 50 {
		t.Errorf("%d of %d vectors ran through the CLI; want all, and at least 50", ran, len(cases))
	}
}

// TestTrustSetFromLedger: a ledger's trusted counterparties form the trust
// set; standard ones do not.
func TestTrustSetFromLedger(t *testing.T) {
	dir := t.TempDir()
	var events strings.Builder
	for d := 1; d <= 9; d++ {
		events.WriteString("- 2026-10-0" + strconv.Itoa(d) + " · agent:good · delivered · 10\n")
	}
	events.WriteString("- 2026-10-01 · agent:meh · delivered · 10\n- 2026-10-02 · agent:meh · late · 10\n- 2026-10-03 · agent:meh · delivered · 10\n")
	ledgerFile := filepath.Join(dir, "REPUTATION.md")
	src := "---\nreputation: 1\nowner: agent:me\nupdated: 2026-10-10\n---\n\n# REPUTATION.md\n\n## Counterparties\n\n" +
		"- agent:good · agent · delivery\n- agent:meh · agent · delivery\n\n## Events\n\n" + events.String()
	if err := os.WriteFile(ledgerFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	edges := filepath.Join(dir, "edges.csv")
	if err := os.WriteFile(edges, []byte("agent:good,x,1\nagent:meh,y,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "trust", "propagate", "--edges", edges, "--trust-set-from", ledgerFile, "--as-of", "2026-10-10", "--json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		TrustSet []string `json:"trustSet"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if strings.Join(out.TrustSet, ",") != "agent:good" {
		t.Errorf("trust set %v, want [agent:good]", out.TrustSet)
	}
}

// TestTrustUsage: conflicting and missing flags are usage errors that say
// what is wrong.
func TestTrustUsage(t *testing.T) {
	dir := t.TempDir()
	edges := filepath.Join(dir, "e.csv")
	if err := os.WriteFile(edges, []byte("a,b,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--global"}, "needs --alpha"},
		{[]string{"--global", "--alpha", "0.5", "--trust-set", "a"}, "not a trust set"},
		{[]string{"--alpha", "0.5", "--trust-set", "a"}, "go with --global"},
		{[]string{}, "a trust set is the ids"},
		{[]string{"--trust-set", "a", "--depth", "65"}, "reason bad_option"},
	} {
		code, _, stderr := runCLI(t, append([]string{"trust", "propagate", "--edges", edges}, tc.args...)...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestTrustSignal: a query reads from standard input, prints its result as
// text, and an oversized or malformed one is a usage error with its reason.
func TestTrustSignal(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		code     int
	}{
		{`{"kind":"decay","input":{"kind":"vote","ageDays":60}}`, "decay: 0.25\n", cli.ExitOK},
		{`{"kind":"clock","input":{"confirmedDay":0,"renewalDays":[40],"asOf":50}}`, "clock: 40\n", cli.ExitOK},
		{`{"kind":"status","input":{"confirmations":[{"weight":0.1,"decay":0.5}]}}`, "status: confirmed\n", cli.ExitOK},
		{`{"kind":"groups","input":{"author":"au","keys":[{"id":"s","vouchedBy":["au"]}],"signals":[{"key":"s","weight":1},{"key":"x","weight":0.5}]}}`,
			"tally: weight 0.5 over 1 groups, 1 self\n  au in group au\n  s in group au\n", cli.ExitOK},
		{`{"kind":"floor","input":{"ageDays":30}}`, "floor: 0.01275\n", cli.ExitOK},
		{`{"kind":"floor","input":{"ageDays":30,"AgeDays":1}}`, "reason bad_signal", cli.ExitUsage},
		{`{"kind":"floor","input":{"ageDays":30}}` + strings.Repeat(" ", 1<<20), "reason too_large", cli.ExitUsage},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"trust", "signal", "-"}, strings.NewReader(tc.in), &stdout, &stderr)
		got := stdout.String()
		if code != cli.ExitOK {
			got = stderr.String()
		}
		if code != tc.code || !strings.Contains(got, tc.want) {
			t.Errorf("%.60s: exit %d, %q; want exit %d, %q", tc.in, code, got, tc.code, tc.want)
		}
	}
}
