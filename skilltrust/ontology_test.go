package skilltrust

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/remnant/passportkit/passport"
)

// TestSkills1Frozen pins the skills-1 data: any change to its meaning is a
// new ontology version, never an edit (see the package documentation).
func TestSkills1Frozen(t *testing.T) {
	b, err := ontologyFiles.ReadFile("ontology/skills-1.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	const want = "b4ca4d87da35ab6eb80e9ccc58fc74c5b5b92a59245b0ab34e85f0049e9bdeb9"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("skills-1.json has SHA-256 %s, pinned %s: publish a new version instead of editing it", got, want)
	}
	if Skills1().Version() != passport.OntologyPolicy {
		t.Errorf("version %q, the passport names %q", Skills1().Version(), passport.OntologyPolicy)
	}
}

func TestNormalize(t *testing.T) {
	o := Skills1()
	for _, tc := range []struct {
		term, name string
		known      bool
	}{
		{"PostgreSQL", "PostgreSQL", true},
		{"postgres", "PostgreSQL", true},
		{"Postgre SQL", "PostgreSQL", true},
		{"PG", "PostgreSQL", true},
		{"pg indexing", "PostgreSQL indexing", true},
		{"Postgres\u00a0 Replication", "PostgreSQL replication", true},
		{"postgres tuning", "PostgreSQL query optimization", true},
		{"tuning", "query optimization", false},
		{"MCP debugging", "MCP reliability", true},
		{"mcp  Reliability", "MCP reliability", true},
		{"SQLite", "SQLite", true},
		{"pg_dump", "pg_dump", false},
		{"PGBouncer", "pgbouncer", false},
		{"Kubernetes Operators", "kubernetes operators", false},
		{"ＰＧ", "PostgreSQL", true},
		{"", "", false},
	} {
		got := o.Normalize(tc.term)
		if got.Name != tc.name || got.Known != tc.known {
			t.Errorf("Normalize(%q) = %+v, want %q known=%t", tc.term, got, tc.name, tc.known)
		}
	}
}

func TestApplicability(t *testing.T) {
	o := Skills1()
	for _, tc := range []struct {
		ev, task string
		want     float64
	}{
		{"PostgreSQL", "Postgres", 1},
		{"PostgreSQL indexing", "PostgreSQL", 0.75},
		{"PostgreSQL", "PostgreSQL indexing", 0.35},
		{"PostgreSQL indexing", "PostgreSQL replication", 0.2},
		{"SQLite", "PostgreSQL", 0},
		{"SQLite indexing", "PostgreSQL indexing", 0},
		{"SQLite indexing", "PostgreSQL", 0},
		{"MCP reliability", "MCP", 0.75},
		{"kubernetes", "kubernetes", 1},
		{"kubernetes", "PostgreSQL", 0},
		{"PostgreSQL bouncer", "PostgreSQL", 0},
	} {
		if got := Applicability(o.Normalize(tc.ev), o.Normalize(tc.task)); got != tc.want {
			t.Errorf("Applicability(%q, %q) = %v, want %v", tc.ev, tc.task, got, tc.want)
		}
	}
}

// TestParseOntology checks the rules an ontology file must follow.
func TestParseOntology(t *testing.T) {
	for name, src := range map[string]string{
		"no version":        `{"skills":[],"aliases":[]}`,
		"unknown member":    `{"version":"x","skills":[],"aliases":[],"extra":1}`,
		"parent after":      `{"version":"x","skills":[{"name":"A b","parent":"A"},{"name":"A"}],"aliases":[]}`,
		"duplicate skill":   `{"version":"x","skills":[{"name":"A"},{"name":"a"}],"aliases":[]}`,
		"not normal form":   `{"version":"x","skills":[{"name":"A  b"}],"aliases":[]}`,
		"alias not normal":  `{"version":"x","skills":[],"aliases":[{"from":"PG","to":"postgresql"}]}`,
		"duplicate alias":   `{"version":"x","skills":[],"aliases":[{"from":"pg","to":"a"},{"from":"pg","to":"b"}]}`,
		"parent misspelled": `{"version":"x","skills":[{"name":"A"},{"name":"A b","parent":"a"}],"aliases":[]}`,
	} {
		if _, err := parseOntology([]byte(src)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestUnicodeVersion pins the Unicode version of NFKC, White_Space and the
// simple lowercase mapping that skills-1 normalises with (SPEC.md §4.3): a
// toolchain with other tables would normalise some terms differently.
func TestUnicodeVersion(t *testing.T) {
	if unicode.Version != "15.0.0" || norm.Version != "15.0.0" {
		t.Fatalf("unicode %s, norm %s; SPEC.md §4.3 names Unicode 15.0", unicode.Version, norm.Version)
	}
	for in, want := range map[string]string{"ΟΔΟΣ": "οδοσ", "İndex": "index", "ς": "ς"} {
		if got := Skills1().Normalize(in).Name; got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
