package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/remnant/passportkit/internal/calendar"
)

// roundTrip checks that src's canonical text parses with no issues into the
// same document, and that canonicalising again changes nothing.
func roundTrip(t *testing.T, src []byte) {
	t.Helper()
	f, err := Parse(src)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return
		}
		t.Fatalf("Parse: %v", err)
	}
	canon := f.Canonical()
	g, err := Parse([]byte(canon))
	if err != nil {
		t.Fatalf("Parse(canonical): %v", err)
	}
	if slices.ContainsFunc(g.Issues, func(x Finding) bool { return x.Code != CodeUnset }) {
		t.Fatalf("the canonical text has issues: %v\n%s", g.Issues, canon)
	}
	if again := g.Canonical(); again != canon {
		t.Fatalf("canonical text is not stable:\n%s\n---- then ----\n%s", canon, again)
	}
	d1, d2 := f.Document(), g.Document()
	d1.Issues, d2.Issues = nil, nil
	j1, err1 := json.Marshal(d1)
	j2, err2 := json.Marshal(d2)
	if err1 != nil || err2 != nil {
		t.Fatalf("marshal: %v %v", err1, err2)
	}
	if !bytes.Equal(j1, j2) {
		t.Fatalf("documents differ after a round trip:\n%s\n%s", j1, j2)
	}
	// The tools must not panic on whatever parsed.
	asOf := calendar.MustParse("2026-02-15")
	_ = Check(f, asOf)
	for _, s := range f.Rank(asOf) {
		if !(s.Score >= 0 && s.Score <= 100) {
			t.Fatalf("score %v out of range", s.Score)
		}
	}
}

func TestRoundTripTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.md")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, b)
		})
	}
}

// FuzzParse checks that Parse never fails on bounded input, and that its
// canonical text is clean, stable and means the same as what was read.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "---", "---\n---", "## Events\n- 2026-01-01 · a · delivered · 5 · - · x",
		"## Events\n- 2026-01-01 | a | late | $5",
		"## Counterparties\n- a · store · -, - · note",
		"## Rules\n- blocked: none, a\n- blocked: b\n- weights: late -0",
		"---\nowner: \"'x'\"\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		roundTrip(t, src)
	})
}
