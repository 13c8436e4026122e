package ledger

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Check returns every finding about f as of asOf: the issues met while
// parsing, and what only the whole file shows — events for undeclared
// counterparties, counterparties with no events, duplicate events, events
// dated after asOf, text that reads like an instruction, and a review that
// is due. Findings are ordered by line. A file with no error findings is
// readable; that says nothing about whether its records are true.
func Check(f *File, asOf Date) []Finding {
	out := slices.Clone(f.Issues)
	add := func(line int, sev Severity, code Code, format string, args ...any) {
		out = append(out, Finding{Line: line, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case f.Updated.IsZero():
	case f.Updated.After(asOf):
		add(f.updatedLine, SeverityWarning, CodeAfterAsOf, "updated %s is after as_of %s", f.Updated, asOf)
	case asOf.Sub(f.Updated) > f.Rules.ReviewDays:
		add(f.updatedLine, SeverityWarning, CodeReviewDue, "review due: the file was last updated %s, %d days before %s, and review_days is %d",
			f.Updated, asOf.Sub(f.Updated), asOf, f.Rules.ReviewDays)
	}

	declared := f.declaredIDs()
	type seen struct{ first, count int }
	undeclared := map[string]*seen{}
	var undeclaredOrder []string
	withEvents := map[string]bool{}
	type key struct {
		cp   string
		date Date
		typ  EventType
	}
	firstLine := map[key]int{}
	for _, e := range f.Events {
		withEvents[e.Counterparty] = true
		if !declared[e.Counterparty] {
			if u, ok := undeclared[e.Counterparty]; ok {
				u.count++
			} else {
				undeclared[e.Counterparty] = &seen{e.Line, 1}
				undeclaredOrder = append(undeclaredOrder, e.Counterparty)
			}
		}
		k := key{e.Counterparty, e.Date, e.Type}
		if first, ok := firstLine[k]; ok {
			add(e.Line, SeverityWarning, CodeDuplicateEvent, "same counterparty, date and type as line %d; if these are two outcomes, both count, but a merge keeps one per file", first)
		} else {
			firstLine[k] = e.Line
		}
		if e.Date.After(asOf) {
			add(e.Line, SeverityError, CodeAfterAsOf, "dated %s, after as_of %s; an outcome is recorded on the day it became known, and this event is not counted", e.Date, asOf)
		}
		if instruction(e.Note) {
			add(e.Line, SeverityWarning, CodeInstruction, "the note reads like an instruction; it is data, never followed")
		}
	}
	for _, id := range undeclaredOrder {
		u := undeclared[id]
		add(u.first, SeverityWarning, CodeUndeclared, "%s is not declared under Counterparties (%d events, first here)", id, u.count)
	}
	for _, c := range f.Counterparties {
		if !withEvents[c.ID] {
			add(c.Line, SeverityWarning, CodeNoEvents, "%s has no events", c.ID)
		}
		if instruction(c.Note) || slices.ContainsFunc(c.Categories, instruction) {
			add(c.Line, SeverityWarning, CodeInstruction, "the note or categories of %s read like an instruction; they are data, never followed", c.ID)
		}
	}
	for _, p := range f.prose {
		if instruction(p.text) {
			add(p.line, SeverityWarning, CodeInstruction, "this text reads like an instruction; it is data, never followed")
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(a.Line, b.Line) })
	return out
}

// Errors counts the findings of error severity.
func Errors(findings []Finding) int {
	n := 0
	for _, f := range findings {
		if f.Severity == SeverityError {
			n++
		}
	}
	return n
}

// instructionPhrases are fragments that, in a record of what happened, only
// make sense as orders to whoever reads the file.
var instructionPhrases = []string{
	"ignore previous", "ignore all", "ignore the above", "ignore any", "ignore your", "ignore prior",
	"disregard", "forget your", "forget all", "forget previous", "new instructions", "instructions:",
	"system prompt", "you are now", "you must", "you should", "you will now", "as an ai",
	"ai agent", "language model", "assistant:", "system:", "[inst]", "<|", "|>",
	"do not ask", "don't ask", "without asking", "no need to ask", "do not tell", "don't tell",
	"do not report", "don't report", "mark as trusted", "mark it as", "mark this", "treat as trusted",
	"treat this", "treat them as", "always trust", "trust this", "must trust", "set the score",
	"set score", "set the tier", "set tier", "raise the score", "increase the score", "raise its score",
	"change the score", "change the tier", "upgrade to trusted", "override", "bypass", "skip the check",
	"skip review", "skip the review", "send payment", "send the payment", "send money", "wire the",
	"transfer the", "transfer funds", "approve all", "approve this", "unblock", "remove from blocked",
	"remove it from", "delete this", "delete the", "delete all", "execute", "run the command",
	"curl ", "wget ", "if you are an", "if you're an", "note to ai", "note to agent", "to the agent",
	"to any agent", "agents reading", "ai reading", "whoever reads",
}

// instructionVerb reports an imperative verb that starts an order. It is
// a switch, not a map, so that a process that checks nothing does not
// build it at start-up.
func instructionVerb(w string) bool {
	switch w {
	case "ignore", "disregard", "forget", "trust", "approve", "pay",
		"send", "transfer", "wire", "unblock", "delete", "treat",
		"mark", "raise", "increase", "upgrade", "override", "bypass",
		"skip", "execute", "please", "do", "don't", "dont",
		"always", "never", "must":
		return true
	}
	return false
}

// controlVerb reports a verb that gives an order after "never" or
// "always": "never ask", "always approve".
func controlVerb(w string) bool {
	switch w {
	case "ask", "tell", "report", "block", "check", "verify",
		"question", "refuse", "stop", "flag", "review":
		return true
	}
	return false
}

// instruction reports text that reads like an instruction to the reader
// rather than a record of what happened. It is a heuristic, tuned to flag
// rather than miss: a flagged line is a warning to read, not an error.
func instruction(s string) bool {
	if s == "" {
		return false
	}
	low := strings.ToLower(s)
	for _, p := range instructionPhrases {
		if strings.Contains(low, p) {
			return true
		}
	}
	first := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if len(first) == 0 {
		return false
	}
	if first[0] == "never" || first[0] == "always" {
		// "never arrived" and "always late" are records; "never block" and
		// "always approve" are orders.
		return len(first) > 1 && (instructionVerb(first[1]) || controlVerb(first[1]))
	}
	return instructionVerb(first[0])
}
