package evidence

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Context holds the structured labels of a task: where and how a skill was,
// or is to be, applied. Labels are compared after NormalizeLabel; nothing is
// ever inferred from prose.
type Context struct {
	Domain      string `json:"domain,omitempty"`
	Environment string `json:"environment,omitempty"`
	Protocol    string `json:"protocol,omitempty"`
	Version     string `json:"version,omitempty"`
	Workload    string `json:"workload,omitempty"`
	Constraints string `json:"constraints,omitempty"`
}

// Dimensions names the context dimensions in their fixed order.
var Dimensions = []string{"domain", "environment", "protocol", "version", "workload", "constraints"}

// Values returns the labels in the order of Dimensions ("" where unset).
func (c Context) Values() [6]string {
	return [6]string{c.Domain, c.Environment, c.Protocol, c.Version, c.Workload, c.Constraints}
}

// Set sets the label of the named dimension, reporting false for an
// unknown dimension.
func (c *Context) Set(dimension, value string) bool {
	switch dimension {
	case "domain":
		c.Domain = value
	case "environment":
		c.Environment = value
	case "protocol":
		c.Protocol = value
	case "version":
		c.Version = value
	case "workload":
		c.Workload = value
	case "constraints":
		c.Constraints = value
	default:
		return false
	}
	return true
}

// Normalized returns c with every label passed through NormalizeLabel.
func (c Context) Normalized() Context {
	return Context{
		Domain: NormalizeLabel(c.Domain), Environment: NormalizeLabel(c.Environment),
		Protocol: NormalizeLabel(c.Protocol), Version: NormalizeLabel(c.Version),
		Workload: NormalizeLabel(c.Workload), Constraints: NormalizeLabel(c.Constraints),
	}
}

// NormalizeLabel is the deterministic normal form of a label or term:
// Unicode NFKC, outer whitespace trimmed, inner runs of whitespace collapsed
// to one space, then lower case. Punctuation is kept.
func NormalizeLabel(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
