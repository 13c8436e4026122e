package docstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/clitest"
)

// root is the repository's root, from this package's folder.
const root = "../.."

// sessions are the pages whose recipes run, grouped by the shell they run
// in: each session is one bash, in a scratch directory of its own holding a
// copy of examples/ (as the repository root does), that runs its pages'
// recipes in order, so that a page may use what an earlier page of its
// session made.
var sessions = [][]string{
	{"README.md", "docs/demo.md"},
	{"docs/verifying.md", "docs/trust-model.md", "docs/reader-trust.md", "docs/conformance.md"},
	{"docs/ledger.md"},
	{"docs/operating.md", "docs/scaling.md"},
	{"docs/reference.md", "docs/issuer-api.md"},
	{"docs/development.md", "docs/performance.md"},
	{"CHANGELOG.md"},
}

// notRun are the recipes that do not run here: a pattern matched against
// each command line of a recipe (its continuation lines joined), and why.
// A pattern that matches no recipe fails the test.
var notRun = []struct{ pattern, why string }{
	{`^go test (-short )?\./\.\.\.$`, "the test suite, which runs this test"},
	{`^\.ci/run\b`, "CI itself: it installs packages and runs the whole suite"},
	{`(^| )go test .*-bench`, "a benchmark: minutes of CPU, some on PostgreSQL; docs/performance.md has its figures"},
	{`^go test .*-fuzz=`, "fuzzing runs until it is stopped"},
	{`^go test \./vectors -update\b`, "it rewrites the committed vectors"},
	{`^PASSPORT_TEST_DATABASE_URL=\S+ go test \./issuer/\.\.\. \./reputation$`, "the store suite on PostgreSQL: a run of the test suite, and it needs a server"},
	{`^PASSPORT_TEST_DATABASE_URL=\S+ go test \./internal/multiproc -run TestSeveralProcesses\b`, "several issuer processes over PostgreSQL: a run of the test suite, and it needs a server"},
	{`^createdb `, "it needs a PostgreSQL server"},
	{`^mkdir -p /tmp/jose `, "it needs Node and the npm registry"},
	{`^PASSPORTKIT_JOSE_DIR=`, "it needs Node's jose package"},
	{`^(CGO_ENABLED=0 )?go install `, "it installs into GOPATH/bin; this test builds the same commands into a directory of its own"},
	{`^export PATH=`, "it would put the installed commands before those this test built"},
	{`^go vet \./\.\.\.$`, "static analysis of the whole module, which .ci/run runs"},
	{`^go run honnef\.co/go/tools/cmd/staticcheck@`, "static analysis of the whole module, which .ci/run runs; it downloads staticcheck"},
	{`^go run \./cmd/trustbench `, "it reads the Bitcoin trust graphs, which may not be copied into the repository"},
	{`^passport verify --trust issuer-trust\.json --subject agt_shop `, "an illustration: the shop's bundle and its issuer's trust file are the reader's own"},
}

// langs are the info strings a fenced block may have: sh blocks run, the
// $ lines of console blocks run, the rest are not commands.
var langs = []string{"sh", "console", "text", "json", "markdown"}

// A recipe is one command line of a page: its first line's number and its
// lines, a backslash at a line's end joining the next.
type recipe struct {
	page  string
	line  int
	lines []string
}

// text is the command line with its continuations joined.
func (r recipe) text() string {
	var b strings.Builder
	for _, l := range r.lines {
		b.WriteString(strings.TrimSuffix(strings.TrimSpace(l), `\`))
		b.WriteByte(' ')
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// recipes returns the command lines of page's sh and console blocks, in
// order, after checking that every code block is fenced and names a
// language of langs.
func recipes(t *testing.T, page string) []recipe {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	out, faults := parseRecipes(page, string(b))
	for _, f := range faults {
		t.Error(f)
	}
	return out
}

// parseRecipes returns the command lines of the sh and console blocks of
// doc, the text of page, and a fault for each code block that is not
// fenced with a language of langs.
func parseRecipes(page, doc string) (out []recipe, faults []string) {
	blocks, indented := clitest.CodeBlocks(doc)
	for _, n := range indented {
		faults = append(faults, fmt.Sprintf("%s:%d: an indented code block: fence it and name its language (%s)", page, n, strings.Join(langs, ", ")))
	}
	for _, blk := range blocks {
		if !slices.Contains(langs, blk.Lang) {
			faults = append(faults, fmt.Sprintf("%s:%d: a code block of language %q; name one of %s", page, blk.Line, blk.Lang, strings.Join(langs, ", ")))
			continue
		}
		var open *recipe
		for i, l := range blk.Lines {
			if blk.Lang == "console" {
				if c, ok := strings.CutPrefix(l, "$ "); ok {
					out = append(out, recipe{page: page, line: blk.Line + i, lines: []string{c}})
				}
				continue
			}
			if blk.Lang != "sh" {
				continue
			}
			if open == nil {
				open = &recipe{page: page, line: blk.Line + i}
			}
			open.lines = append(open.lines, l)
			if !strings.HasSuffix(l, `\`) {
				out = append(out, *open)
				open = nil
			}
		}
	}
	return out, faults
}

// TestParseRecipes pins the reading of a page on a sample: continuation
// lines joined, a transcript's output left out, blocks that are not
// commands skipped, and an unfenced or unnamed block refused.
func TestParseRecipes(t *testing.T) {
	doc := "# P\n\n```sh\npassport a \\\n    --b c\ncurl -s x | jq\n```\n\n```console\n$ passport d\noutput\n```\n\n```text\npassport e\n```\n\n```\nf\n```\n\n    g\n"
	got, faults := parseRecipes("p.md", doc)
	var texts []string
	for _, r := range got {
		texts = append(texts, fmt.Sprintf("%d %s", r.line, r.text()))
	}
	want := []string{"4 passport a --b c", "6 curl -s x | jq", "10 passport d"}
	if !slices.Equal(texts, want) {
		t.Errorf("got %q, want %q", texts, want)
	}
	if len(faults) != 2 || !strings.Contains(faults[0], "p.md:22: an indented code block") || !strings.Contains(faults[1], `p.md:19: a code block of language ""`) {
		t.Errorf("faults %q", faults)
	}
}

// skipped returns why r does not run, or "" when it does; used records the
// patterns that matched.
func skipped(r recipe, used map[int]bool) string {
	for i, n := range notRun {
		if regexp.MustCompile(n.pattern).MatchString(r.text()) {
			used[i] = true
			return n.why
		}
	}
	return ""
}

// TestPages checks what the runner relies on: every page is in one session,
// its code blocks are fenced with a language, every recipe left out is left
// out for a reason that still matches one, and every link between the pages
// leads somewhere.
func TestPages(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "CHANGELOG.md"}
	for _, p := range pages {
		want = append(want, "docs/"+filepath.Base(p))
	}
	got := slices.Concat(sessions...)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("the sessions hold %q; the pages are %q", got, want)
	}
	used := map[int]bool{}
	for _, page := range got {
		for _, r := range recipes(t, page) {
			skipped(r, used)
		}
	}
	for i, n := range notRun {
		if !used[i] {
			t.Errorf("no recipe matches %q (%s): remove it from notRun", n.pattern, n.why)
		}
	}
	checkLinks(t, append(got, "SPEC.md"))
}
