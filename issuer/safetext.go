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

// CleanAgentName checks a new agent's name: 1 to 80 characters, no control
// characters.
func CleanAgentName(name string) (string, error) {
	return cleanText("name", name, 1, MaxAgentName, false)
}

// CleanAgentDescription checks a new agent's description: at most 500
// characters.
func CleanAgentDescription(description string) (string, error) {
	return cleanText("description", description, 0, MaxAgentDescription, true)
}

// CleanOperatorName checks a new operator's name: 1 to 80 characters.
func CleanOperatorName(name string) (string, error) {
	return cleanText("name", name, 1, MaxAgentName, false)
}
