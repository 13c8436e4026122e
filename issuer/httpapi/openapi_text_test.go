package httpapi_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi/openapi"
)

// TestOpenAPITextPatternsAreTheServersRules: the patterns of the
// document's text schemas (LineText, LineTextOrBlank, BlockText,
// ProseText, ProseTextOrBlank) admit exactly the text the server's checks
// admit, character by character: every character of the Basic
// Multilingual Plane, and a sample of the others with every format
// character among them, inside a text, at either end and alone (-short
// samples the plane).
func TestOpenAPITextPatternsAreTheServersRules(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Pattern string `json:"pattern"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	pattern := func(name string) *regexp.Regexp {
		p := doc.Components.Schemas[name].Pattern
		if p == "" {
			t.Fatalf("components.schemas.%s has no pattern", name)
		}
		return regexp.MustCompile(p)
	}
	blank := func(s string) bool { return strings.TrimSpace(s) == "" }
	claim := func(s string) bool {
		b, _ := json.Marshal(map[string]any{"outcome": "success", "context": map[string]string{"domain": s}})
		_, err := issuer.ParseOutcome(b)
		return err == nil
	}
	cases := []struct {
		schema string
		server func(string) bool
		// skip leaves out the texts the server's check admits for a
		// reason of its own (a blank description).
		skip func(string) bool
	}{
		{"LineText", func(s string) bool { _, err := issuer.CleanAgentName(s); return err == nil }, nil},
		{"LineTextOrBlank", claim, nil},
		{"BlockText", func(s string) bool { _, err := issuer.CleanAgentDescription(s); return err == nil }, blank},
		{"ProseTextOrBlank", func(s string) bool { _, err := issuer.NewModeration("active", s); return err == nil }, nil},
		{"ProseText", func(s string) bool { _, err := issuer.NewModeration("active", s); return err == nil && !blank(s) }, nil},
	}
	// With -short, every 17th character of the plane, and every control,
	// format and separator character and the first 768 whatever the mode.
	stride := rune(1)
	if testing.Short() {
		stride = 17
	}
	var runes []rune
	for r := rune(0); r <= 0xFFFF; r++ {
		if r%stride == 0 || r < 0x300 || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Z) {
			runes = append(runes, r)
		}
	}
	for r := rune(0x10000); r <= unicode.MaxRune; r += 61 * stride {
		runes = append(runes, r)
	}
	for _, rt := range unicode.Cf.R32 {
		for r := rt.Lo; r <= rt.Hi; r += rt.Stride {
			runes = append(runes, rune(r))
		}
	}
	for _, c := range cases {
		re := pattern(c.schema)
		bad := 0
		for _, r := range runes {
			if !utf8.ValidRune(r) {
				continue
			}
			ch := string(r)
			for _, s := range []string{"a" + ch + "b", ch + "a", "a" + ch, ch, " " + ch + " "} {
				if c.skip != nil && c.skip(s) {
					continue
				}
				if doc, srv := re.MatchString(s), c.server(s); doc != srv {
					if bad++; bad <= 5 {
						t.Errorf("%s: %s: the document admits it %v, the server %v", c.schema, strconv.QuoteToASCII(s), doc, srv)
					}
				}
			}
		}
	}
}
