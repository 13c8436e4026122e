package reputation

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// NormalizeDomain returns the reputation domain of a memory category:
// Unicode NFKC, outer whitespace trimmed, inner runs of whitespace collapsed
// to one space, then lower case. Punctuation is kept, so
// "Power BI / Performance" becomes "power bi / performance".
//
// Whitespace is the Unicode White_Space property plus U+FEFF, the byte order
// mark. Lower-casing is the full Unicode mapping, not a per-rune one.
func NormalizeDomain(category string) string {
	s := norm.NFKC.String(category)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if isSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return cases.Lower(language.Und).String(b.String())
}

func isSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }
