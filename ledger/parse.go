package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what [Parse] reads. A file over MaxBytes or MaxLines is refused
// as a whole; a line over MaxLineBytes is skipped and reported.
const (
	MaxBytes     = 4 << 20 // 4 MiB
	MaxLines     = 50_000
	MaxLineBytes = 4096
	MaxIDLen     = 120 // characters in an id
)

// ErrTooLarge is returned by [Parse] for input over [MaxBytes] or [MaxLines].
var ErrTooLarge = errors.New("ledger: file too large")

// ErrBadID is wrapped by [CheckID] for text that cannot be an id.
var ErrBadID = errors.New("ledger: bad id")

// File is a parsed REPUTATION.md file. Records are kept in file order;
// lines that could not be read are left out and named in Issues.
type File struct {
	Version        int            // the frontmatter's reputation: field; 0 when absent
	Owner          string         // who keeps the file, like agent:buyer-7
	Updated        Date           // the last day the owner wrote to it
	Counterparties []Counterparty // declared counterparties, first declaration of each id
	Events         []Event        // events that could be read
	Rules          Rules          // the rules in force: the file's values over the defaults
	RulesSet       []RuleKey      // the keys the file set with a usable value, in canonical order
	Issues         []Finding      // what could not be read, by line

	updatedLine int         // line of the updated: field
	prose       []proseLine // text outside the record sections, for the instruction scan
}

type proseLine struct {
	line int
	text string
}

// section is the part of the file a line belongs to.
type section int

const (
	sectionNone section = iota
	sectionCounterparties
	sectionEvents
	sectionRules
)

// CheckID reports why id cannot be a counterparty id: ids are 1 to 120
// characters of lower-case text with no white space, no commas and no
// control characters.
func CheckID(id string) error {
	if why := idProblem(id); why != "" {
		return fmt.Errorf("%w %q: %s", ErrBadID, id, why)
	}
	return nil
}

func idProblem(id string) string {
	switch {
	case id == "":
		return "it is empty"
	case id == "-":
		return "it is a placeholder"
	case utf8.RuneCountInString(id) > MaxIDLen:
		return fmt.Sprintf("it is longer than %d characters", MaxIDLen)
	case !utf8.ValidString(id):
		return "it is not UTF-8"
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= utf8.RuneSelf {
			return idProblemSlow(id)
		}
		switch {
		case c == ' ' || (c >= '\t' && c <= '\r'):
			return "it has white space"
		case c == ',':
			return "it has a comma"
		case c >= 'A' && c <= 'Z':
			return "it has capital letters; ids are lower case"
		case c < 0x20 || c == 0x7f:
			return "it has control characters"
		}
	}
	return ""
}

// idProblemSlow is idProblem for ids with non-ASCII characters.
func idProblemSlow(id string) string {
	for _, r := range id {
		switch {
		case unicode.IsSpace(r):
			return "it has white space"
		case r == ',':
			return "it has a comma"
		case unicode.IsUpper(r):
			return "it has capital letters; ids are lower case"
		case unicode.IsControl(r) || isHiddenFormat(r):
			return "it has control characters"
		}
	}
	return ""
}

// categoryProblem returns why cat cannot be a category, or "".
func categoryProblem(cat string) string {
	switch {
	case cat == "" || cat == "-":
		return "is empty"
	case strings.ContainsRune(cat, ','):
		return "has a comma"
	case nextFieldSplits(cat):
		return "holds a field separator"
	case strings.HasPrefix(cat, "·") || strings.HasPrefix(cat, "|") || strings.HasSuffix(cat, "·") || strings.HasSuffix(cat, "|"):
		return "starts or ends with · or |, which would read as a separator"
	case lineProblem(cat) != "":
		return "has control characters"
	}
	return ""
}

// nextFieldSplits reports whether s holds a field separator.
func nextFieldSplits(s string) bool { _, _, more := nextField(s); return more }

// isHiddenFormat reports invisible characters that can make text read
// differently from what it holds: bidirectional overrides, isolates,
// zero-width characters and line separators.
func isHiddenFormat(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// Parse reads a REPUTATION.md file. It is lenient: a line it cannot read is
// skipped and reported in File.Issues with its line number, and a bad rule
// value leaves the default in force. It fails only for input over the
// limits ([ErrTooLarge]).
func Parse(src []byte) (*File, error) {
	if len(src) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(src), MaxBytes)
	}
	if n := bytes.Count(src, []byte{'\n'}) + 1; n > MaxLines {
		return nil, fmt.Errorf("%w: %d lines, the limit is %d", ErrTooLarge, n, MaxLines)
	}
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	records := bytes.Count(src, []byte("\n-")) + 1
	p := &parser{f: &File{Events: make([]Event, 0, records)}, declared: map[string]int{}, amounts: make([]float64, 0, records)}
	p.rules = newRuleReader(p.report)
	p.run(string(src))
	p.f.Rules = p.rules.rules
	slices.Sort(p.f.Rules.Blocked)
	p.f.RulesSet = p.rules.keys()
	return p.f, nil
}

type parser struct {
	f        *File
	rules    *ruleReader
	declared map[string]int // id -> line of its declaration
	amounts  []float64      // backing store for Event.Amount, to allocate once
}

func (p *parser) report(line int, sev Severity, code Code, format string, args ...any) {
	p.f.Issues = append(p.f.Issues, Finding{Line: line, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) run(src string) {
	lines := strings.Split(src, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	start := p.frontmatter(lines)
	sec := sectionNone
	for i := start; i < len(lines); i++ {
		n, text := i+1, lines[i]
		if why := lineProblem(text); why != "" {
			p.report(n, SeverityError, CodeBadLine, "line %s; skipped", why)
			continue
		}
		trimmed := strings.TrimSpace(text)
		if level, title, ok := heading(trimmed); ok {
			if level <= 2 {
				sec = sectionNone
				if level == 2 {
					switch strings.ToLower(title) {
					case "counterparties":
						sec = sectionCounterparties
					case "events":
						sec = sectionEvents
					case "rules":
						sec = sectionRules
					}
				}
			}
			if sec == sectionNone {
				p.f.prose = append(p.f.prose, proseLine{n, trimmed})
			}
			continue
		}
		if trimmed == "" {
			continue
		}
		if sec == sectionNone {
			p.f.prose = append(p.f.prose, proseLine{n, trimmed})
			continue
		}
		body, ok := listItem(trimmed)
		if !ok {
			p.report(n, SeverityWarning, CodeNotARecord, "not a \"- \" record line in a record section; skipped")
			continue
		}
		switch sec {
		case sectionCounterparties:
			p.counterparty(n, body)
		case sectionEvents:
			p.event(n, body)
		case sectionRules:
			p.rules.read(n, body)
		}
	}
}

// lineProblem returns why a line cannot be read at all, or "".
func lineProblem(s string) string {
	if len(s) > MaxLineBytes {
		return fmt.Sprintf("is longer than %d bytes", MaxLineBytes)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				return fmt.Sprintf("holds the control character U+%04X", c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return "is not valid UTF-8"
		}
		if unicode.IsControl(r) || isHiddenFormat(r) {
			return fmt.Sprintf("holds the invisible or control character U+%04X", r)
		}
		i += size
	}
	return ""
}

// heading reads a Markdown ATX heading.
func heading(s string) (level int, title string, ok bool) {
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, "", false
	}
	return level, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[level:]), "#")), true
}

// listItem returns the body of a "- ", "* " or "+ " list item.
func listItem(s string) (string, bool) {
	if len(s) >= 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+') {
		if len(s) == 1 {
			return "", true
		}
		if s[1] == ' ' || s[1] == '\t' {
			return strings.TrimSpace(s[2:]), true
		}
	}
	return "", false
}

// frontmatter reads the block between the opening and closing "---" lines
// and returns the index of the first body line.
func (p *parser) frontmatter(lines []string) int {
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		p.report(1, SeverityWarning, CodeFrontmatter, "no frontmatter: the file should start with ---, reputation: 1, owner and updated, then ---")
		return 0
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		p.report(1, SeverityError, CodeFrontmatter, "frontmatter is not closed by a --- line; it is read as body text")
		return 1
	}
	seen := map[string]int{}
	for i := 1; i < end; i++ {
		n, text := i+1, lines[i]
		if why := lineProblem(text); why != "" {
			p.report(n, SeverityError, CodeBadLine, "line %s; skipped", why)
			continue
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		k, v, ok := strings.Cut(text, ":")
		key, value := strings.TrimSpace(k), unquote(strings.TrimSpace(v))
		if !ok {
			p.report(n, SeverityWarning, CodeFrontmatter, "frontmatter line is not \"key: value\"; skipped")
			continue
		}
		if first, dup := seen[key]; dup {
			p.report(n, SeverityError, CodeFrontmatter, "frontmatter field %s is already set on line %d; this line is ignored", key, first)
			continue
		}
		seen[key] = n
		switch key {
		case "reputation":
			if value != "1" {
				p.report(n, SeverityError, CodeVersion, "format version %q is not supported; this reader knows version 1 and reads the file as version 1", value)
			}
			p.f.Version = 1
		case "owner":
			if why := idProblem(value); why != "" {
				p.report(n, SeverityError, CodeBadID, "owner %q cannot be read as an id: %s", value, why)
				continue
			}
			p.f.Owner = value
		case "updated":
			d, err := ParseDate(value)
			if err != nil {
				p.report(n, SeverityError, CodeBadDate, "updated %q is not a real day written as YYYY-MM-DD", value)
				continue
			}
			p.f.Updated, p.f.updatedLine = d, n
		default:
			p.report(n, SeverityWarning, CodeFrontmatter, "unknown frontmatter field %q; ignored", key)
		}
	}
	for _, key := range []string{"reputation", "owner", "updated"} {
		if _, ok := seen[key]; !ok {
			code := CodeUnset
			if key == "reputation" {
				code = CodeVersion
			}
			p.report(1, SeverityWarning, code, "frontmatter has no %s field", key)
		}
	}
	return end + 1
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// The field separators: a middle dot or a bar with a space on each side.
const (
	sepDot = " · "
	sepBar = " | "
)

// nextField returns the text before the first separator in s, trimmed, and
// what follows it; rest is "" and more false when s has no separator.
func nextField(s string) (field, rest string, more bool) {
	i, w := strings.Index(s, sepDot), len(sepDot)
	if j := strings.Index(s, sepBar); j >= 0 && (i < 0 || j < i) {
		i, w = j, len(sepBar)
	}
	if i < 0 {
		return strings.TrimSpace(s), "", false
	}
	return strings.TrimSpace(s[:i]), s[i+w:], true
}

// fields holds up to four fields of a record line.
type fields struct {
	f [4]string
	n int
}

// splitFields splits s into at most four fields; the fourth holds the rest
// of s.
func splitFields(s string) fields {
	var out fields
	for out.n < len(out.f)-1 {
		f, rest, more := nextField(s)
		out.f[out.n] = f
		out.n++
		if !more {
			return out
		}
		s = rest
	}
	out.f[out.n] = strings.TrimSpace(s)
	out.n++
	return out
}

func (p *parser) counterparty(n int, body string) {
	fs := splitFields(body)
	f := fs.f[:fs.n]
	if len(f) < 2 {
		p.report(n, SeverityError, CodeMissingField, "counterparty line needs at least an id and a kind (- id · kind · categories · note); skipped")
		return
	}
	if why := idProblem(f[0]); why != "" {
		p.report(n, SeverityError, CodeBadID, "counterparty id %q: %s; skipped", f[0], why)
		return
	}
	kind, err := ParseKind(f[1])
	if err != nil {
		p.report(n, SeverityError, CodeBadKind, "kind %q is not one of agent, service, store, firm; %s skipped", f[1], f[0])
		return
	}
	if first, dup := p.declared[f[0]]; dup {
		p.report(n, SeverityError, CodeRepeatedCounterparty, "%s is already declared on line %d; this line is skipped", f[0], first)
		return
	}
	c := Counterparty{ID: f[0], Kind: kind, Categories: []string{}, Line: n}
	if len(f) > 2 && f[2] != "-" && f[2] != "" {
		for cat := range strings.SplitSeq(f[2], ",") {
			cat = strings.TrimSpace(cat)
			if why := categoryProblem(cat); why != "" {
				p.report(n, SeverityWarning, CodeBadCategory, "category %q %s; ignored", cat, why)
				continue
			}
			c.Categories = append(c.Categories, cat)
		}
		slices.Sort(c.Categories)
		c.Categories = slices.Compact(c.Categories)
	}
	if len(f) > 3 {
		c.Note = f[3]
	}
	if len(counterpartyLine(c)) > MaxLineBytes {
		p.report(n, SeverityError, CodeBadLine, "the line's canonical form would be longer than %d bytes; skipped", MaxLineBytes)
		return
	}
	p.declared[c.ID] = n
	p.f.Counterparties = append(p.f.Counterparties, c)
}

func (p *parser) event(n int, body string) {
	fs := splitFields(body)
	f := fs.f[:fs.n]
	if len(f) < 3 {
		p.report(n, SeverityError, CodeMissingField, "event line needs at least a date, a counterparty and a type (- date · counterparty · type · amount · note); skipped")
		return
	}
	date, err := ParseDate(f[0])
	if err != nil {
		p.report(n, SeverityError, CodeBadDate, "date %q is not a real day written as YYYY-MM-DD; skipped", f[0])
		return
	}
	if why := idProblem(f[1]); why != "" {
		p.report(n, SeverityError, CodeBadID, "counterparty %q: %s; skipped", f[1], why)
		return
	}
	typ, err := ParseEventType(f[2])
	if err != nil {
		p.report(n, SeverityError, CodeBadType, "type %q is not one of delivered, honored, resolved, late, refunded, disputed, failed, breached; skipped", f[2])
		return
	}
	e := Event{Date: date, Counterparty: f[1], Type: typ, Line: n}
	if len(f) > 3 {
		first, rest, _ := nextField(f[3])
		switch v, ok := parseNumber(first, false); {
		case ok:
			p.amounts = append(p.amounts, v)
			e.Amount, e.Note = &p.amounts[len(p.amounts)-1], strings.TrimSpace(rest)
		case first == "-" || first == "":
			e.Note = strings.TrimSpace(rest)
		default:
			e.Note = f[3]
			if looksLikeAmount(first) {
				p.report(n, SeverityError, CodeBadAmount, "amount %q is not a plain number (no sign, currency or thousands separator, at most %d digits); it is read as the note", first, maxNumberDigits)
			}
		}
	}
	// The canonical line differs from this one by at most a few separators
	// and a placeholder; measure it only when that could matter.
	if len(body)+16 > MaxLineBytes && len(eventLine(e)) > MaxLineBytes {
		p.report(n, SeverityError, CodeBadLine, "the line's canonical form would be longer than %d bytes; skipped", MaxLineBytes)
		return
	}
	p.f.Events = append(p.f.Events, e)
}

// looksLikeAmount reports text that was probably meant as an amount: a
// number with a sign, a currency symbol or code, or thousands separators.
func looksLikeAmount(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) >= 4 && s[3] == ' ' && isCurrencyCode(s[:3]) {
		s = s[4:]
	} else if len(s) >= 4 && s[len(s)-4] == ' ' && isCurrencyCode(s[len(s)-3:]) {
		s = s[:len(s)-4]
	}
	s = strings.TrimLeft(s, "+-−$€£¥₹")
	s = strings.TrimRight(s, "$€£¥₹")
	digitsSeen := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digitsSeen = true
		case r == '.' || r == ',' || r == '_' || r == '\'' || r == 'e' || r == 'E':
		default:
			return false
		}
	}
	return digitsSeen
}

func isCurrencyCode(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
