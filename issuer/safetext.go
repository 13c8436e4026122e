package issuer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Agent name and description bounds, in characters.
const (
	MaxAgentName        = 80
	MaxAgentDescription = 500
)

// Neutral text shown in a public profile in place of a name or description
// that fails [SafeText].
const (
	FallbackName        = "Unnamed agent"
	FallbackDescription = "No description available."
)

// SafeText reports whether s may be shown to other agents as it is: valid
// UTF-8 of at most max characters, with no control characters, no invisible
// format characters (such as bidirectional overrides or zero-width
// characters, which can disguise text), no markup, and no phrasing that
// addresses a reading model with instructions. Text written by one agent is
// read by others, often by language models; anything doubtful is replaced
// rather than repaired.
func SafeText(s string, max int) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for i, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return false
		}
		if r == '<' && i+1 < len(s) {
			if c := s[i+1]; c == '/' || c == '!' || c == '?' || c < utf8.RuneSelf && unicode.IsLetter(rune(c)) {
				return false
			}
		}
	}
	lower := strings.ToLower(s)
	for _, p := range injectionPhrases {
		if strings.Contains(lower, p) {
			return false
		}
	}
	return true
}

// injectionPhrases are lower-case fragments typical of text that tries to
// instruct a model reading it.
var injectionPhrases = []string{
	"ignore previous instructions",
	"ignore all previous",
	"ignore the above",
	"disregard previous",
	"disregard all previous",
	"system prompt",
	"you are now",
	"new instructions:",
}

// PublicName returns name if it is safe to show, or [FallbackName].
func PublicName(name string) string {
	if name == "" || !SafeText(name, MaxAgentName) {
		return FallbackName
	}
	return name
}

// PublicDescription returns description if it is safe to show, or
// [FallbackDescription].
func PublicDescription(description string) string {
	if description == "" || !SafeText(description, MaxAgentDescription) {
		return FallbackDescription
	}
	return description
}

// Neutralize returns s with every character that could hide or reorder
// what a reader sees replaced by U+FFFD, the visible replacement character:
// control characters other than tab, line feed and carriage return, and
// invisible format characters (Unicode category Cf: bidirectional
// embeddings, overrides, isolates and marks, zero-width characters, the
// byte-order mark, the soft hyphen). Invalid UTF-8 becomes U+FFFD too. It is
// for text shown to people that was stored before [CleanAgentName] and its
// siblings refused such characters, or that comes from elsewhere; text that
// passes them is returned unchanged.
func Neutralize(s string) string {
	clean := func(r rune) bool {
		return r != utf8.RuneError && !(unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r') && !unicode.Is(unicode.Cf, r)
	}
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !clean(r) }) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if !clean(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CleanAgentName checks a new agent's name: 1 to 80 characters, no control
// characters.
func CleanAgentName(name string) (string, error) {
	return cleanText("name", name, 1, MaxAgentName, lineText)
}

// CleanAgentDescription checks a new agent's description: at most 500
// characters.
func CleanAgentDescription(description string) (string, error) {
	return cleanText("description", description, 0, MaxAgentDescription, blockText)
}

// CleanOperatorName checks a new operator's name: 1 to 80 characters.
func CleanOperatorName(name string) (string, error) {
	return cleanText("name", name, 1, MaxAgentName, lineText)
}

// textKind says which characters a field of text shown to people admits.
//
// Format characters (Unicode category Cf: zero-width spaces and joiners,
// bidirectional embeddings, overrides, isolates and marks, the byte-order
// mark, the soft hyphen) are invisible: they can make a name, title or
// label look like another, or reorder what a reader sees (Trojan Source).
// New text carrying them is refused, never silently repaired, so that what
// is stored is what its author sent; text stored before this rule is
// neutralised where it is shown ([PublicName], [PublicDescription]).
type textKind uint8

const (
	// lineText is a name, title, category, label, domain or key: one line,
	// no control and no format characters.
	lineText textKind = iota
	// blockText is a description: tab, line feed and carriage return
	// allowed, no other control and no format characters.
	blockText
	// proseText is a memory's content or a reason: tab, line feed and
	// carriage return allowed; of the format characters only the
	// bidirectional controls are refused, since zero-width joiners and
	// non-joiners are needed to write Persian, the Indic scripts and emoji
	// sequences in running text.
	proseText
)

// cleanText trims s and checks it: valid UTF-8, between lo and hi
// characters, and only the characters its kind admits.
func cleanText(field, s string, lo, hi int, kind textKind) (string, error) {
	if !utf8.ValidString(s) {
		return "", Errorf(CodeInvalid, "%s is not valid UTF-8", field)
	}
	s = strings.TrimSpace(s)
	n := 0
	for _, r := range s {
		n++
		if unicode.IsControl(r) && !(kind != lineText && (r == '\t' || r == '\n' || r == '\r')) {
			return "", Errorf(CodeInvalid, "%s contains a control character (U+%04X)", field, r)
		}
		if isBidiControl(r) {
			return "", Errorf(CodeInvalid, "%s contains a bidirectional control character (U+%04X)", field, r)
		}
		if kind != proseText && unicode.Is(unicode.Cf, r) {
			return "", Errorf(CodeInvalid, "%s contains an invisible format character (U+%04X)", field, r)
		}
	}
	if n == 0 && lo > 0 {
		return "", Errorf(CodeInvalid, "%s is required", field)
	}
	if n < lo || n > hi {
		return "", Errorf(CodeInvalid, "%s must be %d to %d characters, not %d", field, lo, hi, n)
	}
	return s, nil
}

// isBidiControl reports whether r is one of the Unicode bidirectional
// formatting characters (UAX #9): marks, embeddings, overrides and
// isolates.
func isBidiControl(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
