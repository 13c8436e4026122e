package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/internal/cjson"
)

// Collection limits. An issuer collects at most these many items for one
// subject; when it had to stop short it marks the set truncated, and a set
// beyond them is refused.
const (
	MaxMemories     = 2000  // distinct memories of the subject
	MaxReports      = 10000 // records
	MaxLineageNodes = 10000 // distinct memories, version roots and content hashes
	MaxLinks        = 10000 // derivedFrom, extends and supersedes links

	// MaxFileSize bounds an evidence file before it is parsed.
	MaxFileSize = 16 << 20
	// MaxDepth bounds the nesting of an evidence file's JSON.
	MaxDepth = 32
	// MaxTextLen bounds a skill term and a context label, in bytes.
	MaxTextLen = 200
)

// The error kinds; every *Error wraps exactly one.
var (
	// ErrMalformed: the input is not the JSON the format requires.
	ErrMalformed = errors.New("evidence: malformed input")
	// ErrInvalid: the JSON is well formed but breaks a rule of the format.
	ErrInvalid = errors.New("evidence: invalid evidence")
	// ErrLimit: the input exceeds a size or collection limit.
	ErrLimit = errors.New("evidence: limit exceeded")
)

// Error reports why an evidence file or set was refused, with a stable
// reason code (documented in SPEC.md §5).
type Error struct {
	Code   Code   // stable reason code, such as CodeDuplicateID
	Record string // the offending record's id, when one is known
	Detail string // what was wrong, for people
	kind   error
}

func (e *Error) Error() string {
	if e.Record != "" {
		return fmt.Sprintf("evidence: %s: record %s: %s", e.Code, e.Record, e.Detail)
	}
	return fmt.Sprintf("evidence: %s: %s", e.Code, e.Detail)
}

// Unwrap returns the error kind: ErrMalformed, ErrInvalid or ErrLimit.
func (e *Error) Unwrap() error { return e.kind }

func malformed(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, a...), kind: ErrMalformed}
}

func invalid(code Code, id, format string, a ...any) *Error {
	return &Error{Code: code, Record: id, Detail: fmt.Sprintf(format, a...), kind: ErrInvalid}
}

func overLimit(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, a...), kind: ErrLimit}
}

// Set is a validated collection of records about one subject, with its
// lineage clusters. Build one with Parse or NewSet; a Set is immutable.
type Set struct {
	records   []Record
	truncated bool
	byID      map[string]int
	cluster   []int    // cluster index of each record
	clusters  []string // name of each cluster: its smallest record id
	keys      []Keys
	sizes     Keys      // how many distinct values of each key
	contexts  []Context // normalised contexts, by key
	byDate    []int     // record indices, latest first, then by id
}

// Keys are small integers standing for a record's reporter, operator,
// lineage cluster and normalised context within its set: two records share
// a key exactly when they share the value. They let an assessor group
// records without hashing strings.
type Keys struct {
	Reporter int32
	Operator int32 // -1 when the record names no operator
	Cluster  int32
	Context  int32 // see NormalizedContext
}

// Keys returns the keys of the record at index i.
func (s *Set) Keys(i int) Keys { return s.keys[i] }

// KeySizes returns how many distinct reporters, operators, clusters and
// contexts the set holds: every key is below its size.
func (s *Set) KeySizes() Keys { return s.sizes }

// NormalizedContext returns the normalised context (Context.Normalized)
// with the given key.
func (s *Set) NormalizedContext(key int32) Context { return s.contexts[key] }

// ByDate returns the record indices ordered latest first, then by id. The
// slice must not be modified.
func (s *Set) ByDate() []int { return s.byDate }

// Records returns the records in input order. The slice must not be
// modified.
func (s *Set) Records() []Record { return s.records }

// Truncated reports whether the issuer stopped collecting at a limit, so the
// set may lack evidence.
func (s *Set) Truncated() bool { return s.truncated }

// file is the JSON form of an evidence file (SPEC.md §5). The same members
// may sit in an unsigned passport, which is why other members are ignored.
type file struct {
	Evidence          []json.RawMessage `json:"evidence"`
	EvidenceTruncated bool              `json:"evidenceTruncated,omitempty"`
}

// Parse reads an evidence file: a JSON object whose "evidence" member is
// the array of records and whose optional "evidenceTruncated" member says
// the collection stopped at a limit. Other members are ignored. Parse is
// strict: the input is bounded; JSON that is not I-JSON (duplicate member
// names, invalid UTF-8, lone surrogates, unsafe integers) or nests too deep
// is refused with the project's JSON reason codes; and every record must be written in its
// canonical shape (the members of Record, spelled exactly, no nulls, no
// empty values), so that its canonical JSON is its evidence leaf.
func Parse(b []byte) (*Set, error) {
	if len(b) > MaxFileSize {
		return nil, overLimit(CodeTooLarge, "evidence file is %d bytes; the limit is %d", len(b), MaxFileSize)
	}
	if err := checkJSON(b); err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, malformed(CodeMalformedJSON, "%v", err)
	}
	if f.Evidence == nil {
		return nil, malformed(CodeMissingEvidence, "the object has no \"evidence\" array")
	}
	if len(f.Evidence) > MaxReports {
		return nil, overLimit(CodeTooManyReports, "%d records; the limit is %d", len(f.Evidence), MaxReports)
	}
	recs := make([]Record, len(f.Evidence))
	for i, raw := range f.Evidence {
		r, err := parseRecord(raw) // checkJSON has covered raw
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.Record == "" {
				e.Detail = fmt.Sprintf("evidence[%d]: %s", i, e.Detail)
			}
			return nil, err
		}
		recs[i] = r
	}
	return NewSet(recs, f.EvidenceTruncated)
}

// ParseRecord reads one record, such as a disclosed evidence leaf, with the
// same strictness as Parse. It checks the record's own fields; rules that
// relate records to each other are checked by NewSet.
func ParseRecord(raw []byte) (Record, error) {
	if len(raw) > MaxFileSize {
		return Record{}, overLimit(CodeTooLarge, "record is %d bytes", len(raw))
	}
	if err := checkJSON(raw); err != nil {
		return Record{}, err
	}
	return parseRecord(raw)
}

// parseRecord is ParseRecord for bytes already known to be strict JSON.
// Its refusals come in the order of SPEC.md §5.7: malformed_record (a
// member unknown, named in another case, or of the wrong type), then
// non_canonical_record (a member null or empty), then invalid_record (a
// required member missing, a day that is not one, then the rules of
// validate).
func parseRecord(raw []byte) (Record, error) {
	var w wireRecord
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Record{}, malformed(CodeMalformedRecord, "%v", err)
	}
	doc, err := cjson.Parse(raw, cjson.Options{MaxDepth: MaxDepth})
	if err != nil {
		return Record{}, malformed(CodeMalformedRecord, "%v", err)
	}
	if err := checkMembers(doc.Root(), w.ID); err != nil {
		return Record{}, err
	}
	r := w.Record
	bad := func(format string, a ...any) error { return invalid(CodeInvalidRecord, r.ID, format, a...) }
	if r.Date, err = calendar.Parse(w.Date); err != nil {
		return Record{}, bad("date %q is not a day, YYYY-MM-DD", w.Date)
	}
	if p := w.Prediction; p != nil {
		r.Prediction = &Prediction{Probability: *p.Probability}
		if r.Prediction.Date, err = calendar.Parse(p.Date); err != nil {
			return Record{}, bad("prediction date %q is not a day, YYYY-MM-DD", p.Date)
		}
	}
	canon, err := cjson.Canonicalize(raw)
	if err != nil {
		return Record{}, malformed(CodeMalformedRecord, "%v", err)
	}
	again, err := r.Canonical()
	if err != nil {
		return Record{}, malformed(CodeMalformedRecord, "%v", err)
	}
	if !bytes.Equal(canon, again) {
		return Record{}, &Error{Code: CodeNonCanonicalRecord, Record: r.ID, kind: ErrMalformed,
			Detail: "the record does not re-encode to itself"}
	}
	if err := r.validate(); err != nil {
		return Record{}, err
	}
	return r, nil
}

// wireRecord is a record as it is read: its days as text, so that a day
// that is not one is invalid_record rather than a member of the wrong
// type, and its prediction's members as written.
type wireRecord struct {
	Record
	Date       string          `json:"date"`
	Prediction *wirePrediction `json:"prediction"`
}

type wirePrediction struct {
	Probability *float64 `json:"probability"`
	Date        string   `json:"date"`
}

// The members of a record and of its objects (SPEC.md §5.2), each with
// whether it is required.
var (
	recordMembers = map[string]bool{
		"id": true, "type": true, "skill": true, "outcome": false, "quality": true, "reporter": true,
		"operator": false, "ownership": true, "lineage": false, "context": false, "date": true,
		"mirrorOf": false, "resolves": false, "prediction": false,
	}
	lineageMembers = map[string]bool{
		"memory": false, "versionRoot": false, "contentHash": false, "derivedFrom": false, "extends": false, "supersedes": false,
	}
	contextMembers    = map[string]bool{"domain": false, "environment": false, "protocol": false, "version": false, "workload": false, "constraints": false}
	predictionMembers = map[string]bool{"probability": true, "date": true}
	recordRequired    = [...]string{"id", "type", "skill", "quality", "reporter", "ownership", "date"}
)

// checkMembers checks a record's member names exactly (encoding/json
// matches them without regard to case), then that no member is null or
// empty (SPEC.md §5.1: `""`, `{}`, `[]`), at the top level or inside
// lineage, context and prediction, except "skill":"" and "lineage":{},
// which §5.7 names as invalid_record; then that the required members are
// present, the record's and its prediction's.
func checkMembers(root cjson.Value, id string) error {
	objects := map[string]map[string]bool{"lineage": lineageMembers, "context": contextMembers, "prediction": predictionMembers}
	for k, v := range root.Members() {
		name, _ := k.Text()
		if _, ok := recordMembers[name]; !ok {
			return malformed(CodeMalformedRecord, "unknown member %q", clipName(name))
		}
		if known := objects[name]; known != nil {
			for k2 := range v.Members() {
				n2, _ := k2.Text()
				if _, ok := known[n2]; !ok {
					return malformed(CodeMalformedRecord, "unknown member %q of %s", clipName(n2), name)
				}
			}
		}
	}
	for k, v := range root.Members() {
		name, _ := k.Text()
		if empty(v) && name != "skill" && !(name == "lineage" && v.Kind() == cjson.Object) {
			return &Error{Code: CodeNonCanonicalRecord, Record: id, kind: ErrMalformed,
				Detail: fmt.Sprintf("%s is null or empty: a member that is empty is left out", name)}
		}
		if objects[name] == nil {
			continue
		}
		for k2, v2 := range v.Members() {
			if empty(v2) {
				n2, _ := k2.Text()
				return &Error{Code: CodeNonCanonicalRecord, Record: id, kind: ErrMalformed,
					Detail: fmt.Sprintf("%s.%s is null or empty: a member that is empty is left out", name, n2)}
			}
		}
	}
	for _, name := range recordRequired {
		if _, ok := root.Get(name); !ok {
			return invalid(CodeInvalidRecord, id, "%s is missing", name)
		}
	}
	if p, ok := root.Get("prediction"); ok {
		for _, name := range [...]string{"probability", "date"} {
			if _, ok := p.Get(name); !ok {
				return invalid(CodeInvalidRecord, id, "prediction.%s is missing", name)
			}
		}
	}
	return nil
}

// empty reports whether v is null, "", {} or [].
func empty(v cjson.Value) bool {
	switch v.Kind() {
	case cjson.Null:
		return true
	case cjson.String:
		return len(v.Raw()) == 2
	case cjson.Object, cjson.Array:
		return v.Len() == 0
	}
	return false
}

// clipName bounds an unknown member name quoted in a detail.
func clipName(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Canonical returns the record's canonical JSON (RFC 8785): its evidence
// leaf. See [Record.AppendCanonical].
func (r Record) Canonical() ([]byte, error) {
	return r.AppendCanonical(make([]byte, 0, 256))
}

// checkJSON refuses what encoding/json would accept silently: duplicate
// member names, lone surrogates, integers beyond ±(2^53−1), trailing data
// and nesting beyond MaxDepth. Its reason codes are the project's JSON
// codes (json_duplicate_key, ...).
func checkJSON(b []byte) error {
	_, err := cjson.Parse(b, cjson.Options{MaxDepth: MaxDepth, IndexDepth: 1})
	var ce *cjson.Error
	if errors.As(err, &ce) {
		kind := ErrMalformed
		if ce.Code == cjson.CodeTooDeep {
			kind = ErrLimit
		}
		return &Error{Code: Code(ce.Code.String()), Detail: fmt.Sprintf("%s at byte %d", ce.Msg, ce.Offset), kind: kind}
	}
	return err
}

// pseudonym reports whether s is prefix followed by 1 to 64 of
// [A-Za-z0-9_-].
func pseudonym(s, prefix string) bool {
	if !strings.HasPrefix(s, prefix) || len(s) == len(prefix) || len(s) > len(prefix)+64 {
		return false
	}
	for i := len(prefix); i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ValidContentHash reports whether s has the form of a lineage contentHash:
// "sha256:" and 64 lower-case hex digits.
func ValidContentHash(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for i := range len(h) {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// blank reports whether s is empty in normal form (NormalizeLabel), without
// normalising ASCII text.
func blank(s string) bool {
	for i := range len(s) {
		switch c := s[i]; {
		case c >= 0x80:
			return NormalizeLabel(s) == ""
		case c != ' ' && (c < '\t' || c > '\r'):
			return false
		}
	}
	return true
}

// validate checks the rules that concern one record alone.
func (r *Record) validate() error {
	bad := func(format string, a ...any) error { return invalid(CodeInvalidRecord, r.ID, format, a...) }
	if !pseudonym(r.ID, "ev_") {
		return invalid(CodeInvalidRecord, "", "id %q is not ev_ followed by 1 to 64 letters, digits, _ or -", r.ID)
	}
	if !types[r.Type] {
		return bad("unknown type %q", r.Type)
	}
	if r.Skill == "" || len(r.Skill) > MaxTextLen || blank(r.Skill) {
		return bad("skill must be a non-blank term of at most %d bytes", MaxTextLen)
	}
	if (r.Type == TypeOutcome) != (r.Outcome != "") {
		return bad("an outcome is required on outcome records and only there")
	}
	if r.Outcome != "" && !outcomes[r.Outcome] {
		return bad("unknown outcome %q", r.Outcome)
	}
	if !r.Quality.known() {
		return bad("unknown quality %q", r.Quality)
	}
	if !pseudonym(r.Reporter, "act_") {
		return bad("reporter %q is not an act_ pseudonym", r.Reporter)
	}
	if !ownerships[r.Ownership] {
		return bad("unknown ownership %q", r.Ownership)
	}
	switch r.Ownership {
	case OwnershipDistinct, OwnershipShared:
		if !pseudonym(r.Operator, "op_") {
			return bad("%s ownership needs the reporter's op_ operator at the time of the event", r.Ownership)
		}
	default:
		if r.Operator != "" {
			return bad("%s ownership carries no operator", r.Ownership)
		}
	}
	// Tiers are never raised by a claim: the subject's own records are
	// DECLARED (declarations) or SELF_REPORTED, and no one else's are.
	self := r.Ownership == OwnershipSelf
	switch {
	case r.Type == TypeDeclaration && (!self || r.Quality != QualityDeclared):
		return bad("a declaration is the subject's own and DECLARED")
	case r.Type != TypeDeclaration && r.Quality == QualityDeclared:
		return bad("only declarations are DECLARED")
	case self && r.Type != TypeDeclaration && r.Quality != QualitySelfReported:
		return bad("the subject's own records are SELF_REPORTED; a claim cannot raise its tier to %s", r.Quality)
	case !self && r.Quality == QualitySelfReported:
		return bad("SELF_REPORTED is for the subject's own records")
	}
	if (r.Type == TypePublication || r.Type.Correction()) && !self {
		return bad("a %s is the subject's own", r.Type)
	}
	if r.Type.Correction() && (r.Lineage == nil || r.Lineage.Memory == "") {
		return bad("a %s names the memory it acts on", r.Type)
	}
	if r.Date.IsZero() {
		return bad("date is required")
	}
	if r.Date.Before(minDate) {
		return bad("date is before 1970-01-01")
	}
	if err := r.Lineage.validate(r.ID); err != nil {
		return err
	}
	for i, v := range r.Context.Values() {
		if v != "" && (len(v) > MaxTextLen || blank(v)) {
			return bad("context %s must be a non-blank label of at most %d bytes", Dimensions[i], MaxTextLen)
		}
	}
	if r.MirrorOf != "" && (!pseudonym(r.MirrorOf, "ev_") || r.MirrorOf == r.ID) {
		return bad("mirrorOf %q does not name another record", r.MirrorOf)
	}
	if (r.Type == TypeResolution) != (r.Resolves != "") {
		return bad("resolves is required on resolution records and only there")
	}
	if r.Resolves != "" && !pseudonym(r.Resolves, "ev_") {
		return bad("resolves %q is not a record id", r.Resolves)
	}
	if p := r.Prediction; p != nil {
		if r.Type != TypeOutcome {
			return bad("only outcome records carry a prediction")
		}
		if !(p.Probability >= 0 && p.Probability <= 1) {
			return bad("prediction probability must be in [0, 1]")
		}
		if !p.Date.IsZero() && p.Date.Before(minDate) {
			return bad("prediction date is before 1970-01-01")
		}
		if p.Date.IsZero() || p.Date.Sub(r.Date) >= 0 {
			return &Error{Code: CodeRetrospective, Record: r.ID, kind: ErrInvalid,
				Detail: "a prediction must be dated strictly before its outcome"}
		}
	}
	return nil
}

func (l *Lineage) validate(id string) error {
	if l == nil {
		return nil
	}
	bad := func(format string, a ...any) error { return invalid(CodeInvalidRecord, id, format, a...) }
	if l.Memory != "" && !pseudonym(l.Memory, "mem_") {
		return bad("lineage memory %q is not a mem_ pseudonym", l.Memory)
	}
	if l.VersionRoot != "" && !pseudonym(l.VersionRoot, "mem_") {
		return bad("lineage versionRoot %q is not a mem_ pseudonym", l.VersionRoot)
	}
	if l.ContentHash != "" && !ValidContentHash(l.ContentHash) {
		return bad("lineage contentHash %q is not sha256: and 64 lower-case hex digits", l.ContentHash)
	}
	for _, links := range [][]string{l.DerivedFrom, l.Extends, l.Supersedes} {
		for _, m := range links {
			if !pseudonym(m, "mem_") {
				return bad("lineage link %q is not a mem_ pseudonym", m)
			}
		}
	}
	for range l.nodes() {
		return nil
	}
	return bad("an empty lineage is written by leaving the member out")
}

// NewSet validates records as one subject's evidence and clusters their
// lineage. Each record must pass the checks of ParseRecord; in addition ids
// are unique, references point at suitable records, a reporter is the
// subject in all of its records or in none, and the collection limits hold.
func NewSet(records []Record, truncated bool) (*Set, error) {
	return newSet(records, truncated, true)
}

// NewWrittenSet is NewSet for records the caller wrote itself from input
// it has already validated, such as an issuer's source adapter writing a
// subject's evidence: it checks what relates the records to each other
// (unique ids, references, one subject reporter, the collection limits)
// but not each record's own fields again. Records read from outside go
// through Parse, ParseRecord or NewSet, never through NewWrittenSet.
func NewWrittenSet(records []Record, truncated bool) (*Set, error) {
	return newSet(records, truncated, false)
}

// newSet is NewSet, checking each record's own fields only when check is
// set.
func newSet(records []Record, truncated, check bool) (*Set, error) {
	if len(records) > MaxReports {
		return nil, overLimit(CodeTooManyReports, "%d records; the limit is %d", len(records), MaxReports)
	}
	s := &Set{records: records, truncated: truncated, byID: make(map[string]int, len(records))}
	for i := range records {
		r := &records[i]
		if check {
			if err := r.validate(); err != nil {
				return nil, err
			}
		}
		if _, dup := s.byID[r.ID]; dup {
			return nil, invalid(CodeDuplicateID, r.ID, "the id is used twice")
		}
		s.byID[r.ID] = i
	}
	if err := s.checkReferences(); err != nil {
		return nil, err
	}
	if err := checkReporters(records); err != nil {
		return nil, err
	}
	if err := s.clusterLineage(); err != nil {
		return nil, err
	}
	s.index()
	return s, nil
}

// index interns reporters, operators and normalised contexts, and orders
// the records by date.
func (s *Set) index() {
	reporters, operators := map[string]int32{}, map[string]int32{}
	raw, norm := map[Context]int32{}, map[Context]int32{}
	intern := func(m map[string]int32, v string) int32 {
		k, ok := m[v]
		if !ok {
			k = int32(len(m))
			m[v] = k
		}
		return k
	}
	s.keys = make([]Keys, len(s.records))
	for i, r := range s.records {
		k := Keys{Reporter: intern(reporters, r.Reporter), Operator: -1, Cluster: int32(s.cluster[i])}
		if r.Operator != "" {
			k.Operator = intern(operators, r.Operator)
		}
		c, ok := raw[r.Context]
		if !ok {
			n := r.Context.Normalized()
			if c, ok = norm[n]; !ok {
				c = int32(len(s.contexts))
				s.contexts = append(s.contexts, n)
				norm[n] = c
			}
			raw[r.Context] = c
		}
		k.Context = c
		s.keys[i] = k
	}
	s.sizes = Keys{Reporter: int32(len(reporters)), Operator: int32(len(operators)),
		Cluster: int32(len(s.clusters)), Context: int32(len(s.contexts))}
	s.byDate = make([]int, len(s.records))
	for i := range s.byDate {
		s.byDate[i] = i
	}
	slices.SortFunc(s.byDate, func(a, b int) int {
		if c := s.records[b].Date.Sub(s.records[a].Date); c != 0 {
			return int(max(-1, min(1, c)))
		}
		return strings.Compare(s.records[a].ID, s.records[b].ID)
	})
}

func (s *Set) checkReferences() error {
	for _, r := range s.records {
		if r.MirrorOf != "" {
			j, ok := s.byID[r.MirrorOf]
			if !ok {
				return invalid(CodeDanglingReference, r.ID, "mirrorOf %s names no record", r.MirrorOf)
			}
			m := s.records[j]
			if m.Reporter != r.Reporter || !m.Type.Observation() || !r.Type.Observation() {
				return invalid(CodeBadMirror, r.ID, "a mirror repeats an observation by the same reporter")
			}
		}
		if r.Resolves != "" {
			j, ok := s.byID[r.Resolves]
			if !ok {
				return invalid(CodeDanglingReference, r.ID, "resolves %s names no record", r.Resolves)
			}
			c := s.records[j]
			switch {
			case c.Type != TypeContradiction:
				return invalid(CodeBadResolution, r.ID, "%s is not a contradiction", c.ID)
			case c.Reporter != r.Reporter:
				return invalid(CodeBadResolution, r.ID, "only the contradiction's own reporter can resolve it")
			case r.Date.Sub(c.Date) < 0:
				return invalid(CodeBadResolution, r.ID, "a resolution cannot predate its contradiction")
			case r.Skill != c.Skill:
				return invalid(CodeBadResolution, r.ID, "a resolution names its contradiction's skill")
			}
		}
	}
	return nil
}
