package ledger

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares v, as indented JSON (or as text when it is a string),
// with testdata/golden/name, rewriting the file under -update.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	var got []byte
	if s, ok := v.(string); ok {
		got = []byte(s)
	} else {
		var err error
		if got, err = json.MarshalIndent(v, "", "  "); err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
	}
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestGolden runs every tool on the test files and compares the output
// with the golden files.
func TestGolden(t *testing.T) {
	asOf := day(t, "2026-10-22")
	example, short, findings := load(t, "example.md"), load(t, "short.md"), load(t, "findings.md")
	sixty := 60.0
	cases := map[string]func() (any, error){
		"parse-example.json":  func() (any, error) { return example.Document(), nil },
		"parse-findings.json": func() (any, error) { return findings.Document(), nil },
		"canonical-findings.md": func() (any, error) {
			return findings.Canonical(), nil
		},
		"check-findings.json": func() (any, error) { return Check(findings, asOf), nil },
		"score-shop.json":     func() (any, error) { return example.Score("shop.example", asOf), nil },
		"rank-example.json":   func() (any, error) { return example.Rank(asOf), nil },
		"tier-68-5.json": func() (any, error) {
			d := DefaultRules()
			return TierFor(68, 5, d.Tiers, d.MinEvents), nil
		},
		"decay-curve-82.json": func() (any, error) {
			return DecayCurve(CurveInput{Score: 82, EvidenceMass: 6, EffectiveEvents: 7, HalfLifeDays: 90, Days: 180})
		},
		"path-short.json": func() (any, error) {
			return short.PathToTier("shop.example", asOf, Trusted, Delivered, &sixty)
		},
		"path-courier.json": func() (any, error) {
			return example.PathToTier("agent:courier-12", asOf, Standard, Delivered, nil)
		},
		"merge-ab.json": func() (any, error) {
			return Merge(load(t, "merge-a.md"), load(t, "merge-b.md"), SideA)
		},
		"template-shop.md": func() (any, error) {
			return Template(TemplateInput{Owner: "agent:buyer-7", Counterparty: "shop.example", Kind: KindStore, Categories: []string{"parts"}, AsOf: asOf})
		},
		"share-shop.json": func() (any, error) {
			s, id, err := example.Share("shop.example", asOf)
			return map[string]any{"shared": s, "id": id}, err
		},
	}
	for _, name := range StarterNames {
		cases["starter-"+name+".json"] = func() (any, error) { return StarterFor(name, "", asOf) }
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			v, err := run()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, v)
		})
	}
}
