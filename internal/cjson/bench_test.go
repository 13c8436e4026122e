package cjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchDocs are canonical documents of the shapes bundles have: long
// base64 strings, hex arrays, and many small objects.
func benchDocs() map[string][]byte {
	var objs, hexes []string
	for i := range 2000 {
		objs = append(objs, fmt.Sprintf(`{"date":"2026-04-01","id":"ev_%05d","outcome":"success","weight":0.75}`, i))
		hexes = append(hexes, `"`+strings.Repeat(fmt.Sprintf("%02x", i%256), 32)+`"`)
	}
	return map[string][]byte{
		"base64":  []byte(`{"credential":"` + strings.Repeat("eyJhbGciOiJFZERTQSJ9-_", 20000) + `"}`),
		"hex":     []byte(`[` + strings.Join(hexes, ",") + `]`),
		"objects": []byte(`[` + strings.Join(objs, ",") + `]`),
		"ints":    []byte(`[` + strings.Repeat("1,", 100000) + `1]`),
		"escapes": []byte(`["` + strings.Repeat(`\n\"`, 50000) + `"]`),
	}
}

func BenchmarkParse(b *testing.B) {
	for name, doc := range benchDocs() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(doc, Options{Canonical: true, DeferNumbers: true, IndexDepth: 4}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/encoding-json-valid", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if !json.Valid(doc) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkParseHostile parses the shapes that cost the most per byte.
func BenchmarkParseHostile(b *testing.B) {
	docs := map[string][]byte{
		"ints":    []byte(`{"zz":[` + strings.Repeat("1,", 250000) + `1]}`),
		"nesting": []byte(`{"zz":[` + strings.Repeat(strings.Repeat("[", 30)+strings.Repeat("]", 30)+",", 8000) + `1]}`),
		"objects": []byte(`{"zz":[` + strings.Repeat(`{"a":1,"b":2},`, 36000) + `1]}`),
	}
	for name, doc := range docs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(doc, Options{Canonical: true, DeferNumbers: true, IndexDepth: 4}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
