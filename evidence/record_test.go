package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDate(t *testing.T) {
	for _, s := range []string{"1970-01-01", "2000-02-29", "2024-12-31", "9999-12-31"} {
		d, err := ParseDate(s)
		if err != nil || d.String() != s {
			t.Errorf("%s: %v, %v", s, d, err)
		}
	}
	for _, s := range []string{"", "2026-1-01", "2026-02-29", "1900-02-28", "1969-12-31", "2026-13-01", "2026-00-10", "2026-01-32", "+026-01-01", "2026/01/01"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("%s accepted", s)
		}
	}
	a, b := MustDate("2024-02-28"), MustDate("2025-03-01")
	if n := b.Sub(a); n != 367 {
		t.Errorf("days %d, want 367", n)
	}
	if a.AddDays(367) != b || b.AddDays(-367) != a {
		t.Error("AddDays does not invert Sub")
	}
	if (Date{}).IsZero() != true || MustDate("1970-01-01").IsZero() {
		t.Error("only the zero Date is zero")
	}
}

// base is a valid record; cases change one thing.
func base() Record {
	return Record{ID: "ev_1", Type: TypeOutcome, Outcome: OutcomeSuccess, Skill: "PostgreSQL", Quality: QualityObservedReuse,
		Reporter: "act_1", Operator: "op_1", Ownership: OwnershipDistinct, Date: MustDate("2026-01-01")}
}

func TestRecordRules(t *testing.T) {
	if err := (&[]Record{base()}[0]).validate(); err != nil {
		t.Fatalf("base record refused: %v", err)
	}
	for name, change := range map[string]func(*Record){
		"bad id":                    func(r *Record) { r.ID = "rec_1" },
		"unknown type":              func(r *Record) { r.Type = "vote" },
		"blank skill":               func(r *Record) { r.Skill = "  " },
		"long skill":                func(r *Record) { r.Skill = strings.Repeat("s", MaxTextLen+1) },
		"outcome missing":           func(r *Record) { r.Outcome = "" },
		"outcome on corroboration":  func(r *Record) { r.Type = TypeCorroboration },
		"unknown outcome":           func(r *Record) { r.Outcome = "win" },
		"unknown quality":           func(r *Record) { r.Quality = "GOLD" },
		"bad reporter":              func(r *Record) { r.Reporter = "agt_1" },
		"unknown ownership":         func(r *Record) { r.Ownership = "maybe" },
		"distinct without operator": func(r *Record) { r.Operator = "" },
		"unknown with operator":     func(r *Record) { r.Ownership = OwnershipUnknown },
		"self claims a tier": func(r *Record) {
			r.Ownership, r.Operator, r.Quality = OwnershipSelf, "", QualityIndependentReproduction
		},
		"other is self-reported": func(r *Record) { r.Quality = QualitySelfReported },
		"declaration by other":   func(r *Record) { r.Type, r.Outcome, r.Quality = TypeDeclaration, "", QualityDeclared },
		"declared outcome":       func(r *Record) { r.Quality = QualityDeclared },
		"publication by other":   func(r *Record) { r.Type, r.Outcome = TypePublication, "" },
		"revision by other":      func(r *Record) { r.Type, r.Outcome, r.Lineage = TypeRevision, "", &Lineage{Memory: "mem_1"} },
		"revision without memory": func(r *Record) {
			r.Type, r.Outcome, r.Ownership, r.Operator, r.Quality = TypeRevision, "", OwnershipSelf, "", QualitySelfReported
		},
		"no date":             func(r *Record) { r.Date = Date{} },
		"empty lineage":       func(r *Record) { r.Lineage = &Lineage{} },
		"bad memory":          func(r *Record) { r.Lineage = &Lineage{Memory: "m1"} },
		"bad hash":            func(r *Record) { r.Lineage = &Lineage{ContentHash: "sha256:ABC"} },
		"bad link":            func(r *Record) { r.Lineage = &Lineage{Memory: "mem_1", Extends: []string{"x"}} },
		"blank label":         func(r *Record) { r.Context.Workload = " " },
		"self mirror":         func(r *Record) { r.MirrorOf = "ev_1" },
		"resolves on outcome": func(r *Record) { r.Resolves = "ev_2" },
		"prediction on corroboration": func(r *Record) {
			r.Type, r.Outcome, r.Prediction = TypeCorroboration, "", &Prediction{Probability: 0.5, Date: MustDate("2025-01-01")}
		},
		"prediction out of range": func(r *Record) { r.Prediction = &Prediction{Probability: 1.5, Date: MustDate("2025-01-01")} },
		"retrospective":           func(r *Record) { r.Prediction = &Prediction{Probability: 0.5, Date: r.Date} },
	} {
		r := base()
		change(&r)
		err := r.validate()
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Code == "" {
			t.Errorf("%s: %v is not an invalid-evidence error with a code", name, err)
		}
	}
}

func marshalSet(t testing.TB, recs []Record, truncated bool) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"evidence":[`)
	for i, r := range recs {
		c, err := r.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(c)
	}
	fmt.Fprintf(&b, `],"evidenceTruncated":%t,"passportVersion":"0.1"}`, truncated)
	return b.Bytes()
}

func TestParseRoundTrip(t *testing.T) {
	r := base()
	r.Lineage = &Lineage{Memory: "mem_1", VersionRoot: "mem_0", ContentHash: "sha256:" + strings.Repeat("a", 64), DerivedFrom: []string{"mem_9"}}
	r.Context = Context{Domain: "Payments", Workload: "OLTP"}
	r.Prediction = &Prediction{Probability: 0.75, Date: MustDate("2025-12-01")}
	set, err := Parse(marshalSet(t, []Record{r}, true))
	if err != nil {
		t.Fatal(err)
	}
	if !set.Truncated() || len(set.Records()) != 1 {
		t.Fatalf("truncated %t, %d records", set.Truncated(), len(set.Records()))
	}
	a, _ := r.Canonical()
	b, _ := set.Records()[0].Canonical()
	if !bytes.Equal(a, b) {
		t.Errorf("round trip changed the leaf:\n%s\n%s", a, b)
	}
}

func TestParseRefusals(t *testing.T) {
	ok := `{"id":"ev_1","type":"outcome","skill":"PostgreSQL","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_1","operator":"op_1","ownership":"distinct","date":"2026-01-01"}`
	for code, src := range map[string]string{
		"json_duplicate_key":   `{"evidence":[],"evidence":[]}`,
		"json_invalid_utf8":    "{\"evidence\":[],\"x\":\"\xff\"}",
		"json_lone_surrogate":  `{"evidence":[],"x":"\ud800"}`,
		"json_number_range":    `{"evidence":[],"x":9007199254740993}`,
		"json_trailing_data":   `{"evidence":[]} {}`,
		"json_too_deep":        `{"evidence":[],"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
		"missing_evidence":     `{"records":[]}`,
		"malformed_json":       `{"evidence":{}}`,
		"malformed_record":     `{"evidence":[{"id":"ev_1","Weight":1}]}`,
		"non_canonical_record": `{"evidence":[` + strings.Replace(ok, `"date"`, `"lineage":null,"date"`, 1) + `]}`,
		"duplicate_id":         `{"evidence":[` + ok + `,` + ok + `]}`,
		"invalid_record":       `{"evidence":[` + strings.Replace(ok, `"act_1"`, `"nobody"`, 1) + `]}`,
	} {
		_, err := Parse([]byte(src))
		var e *Error
		if !errors.As(err, &e) || string(e.Code) != code {
			t.Errorf("%s: got %v", code, err)
		}
	}
	if _, err := Parse([]byte(`{"evidence":[` + strings.Replace(ok, "2026-01-01", "1969-12-31", 1) + `]}`)); err == nil {
		t.Error("a record dated before 1970 was accepted")
	}
	if _, err := Parse(make([]byte, MaxFileSize+1)); !errors.Is(err, ErrLimit) {
		t.Errorf("oversized file: %v", err)
	}
}

func TestSetRules(t *testing.T) {
	self := func(id, actor string) Record {
		r := base()
		r.ID, r.Reporter, r.Ownership, r.Operator, r.Quality = id, actor, OwnershipSelf, "", QualitySelfReported
		return r
	}
	other := func(id, actor string) Record { r := base(); r.ID, r.Reporter = id, actor; return r }
	contra := other("ev_c", "act_c")
	contra.Type, contra.Outcome = TypeContradiction, ""
	res := other("ev_r", "act_c")
	res.Type, res.Outcome, res.Resolves = TypeResolution, "", "ev_c"
	for code, recs := range map[string][]Record{
		"inconsistent_reporter": {self("ev_1", "act_s"), self("ev_2", "act_t")},
		"dangling_reference":    {func() Record { r := other("ev_1", "act_a"); r.MirrorOf = "ev_9"; return r }()},
		"bad_mirror":            {other("ev_1", "act_a"), func() Record { r := other("ev_2", "act_b"); r.MirrorOf = "ev_1"; return r }()},
		"bad_resolution":        {contra, func() Record { r := res; r.Reporter = "act_x"; return r }()},
	} {
		// NewWrittenSet skips only each record's own checks.
		for _, newSet := range []func([]Record, bool) (*Set, error){NewSet, NewWrittenSet} {
			_, err := newSet(recs, false)
			var e *Error
			if !errors.As(err, &e) || string(e.Code) != code {
				t.Errorf("%s: got %v", code, err)
			}
		}
	}
	valid := []Record{contra, res, self("ev_1", "act_s")}
	want, err := NewSet(valid, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := NewWrittenSet(valid, true); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("NewWrittenSet gives %+v (%v); NewSet %+v", got, err, want)
	}
	mix := []Record{self("ev_1", "act_s"), other("ev_2", "act_s")}
	if _, err := NewSet(mix, false); err == nil {
		t.Error("the subject appears as a distinct reporter")
	}
	early := res
	early.Date = contra.Date.AddDays(-1)
	if _, err := NewSet([]Record{contra, early}, false); err == nil {
		t.Error("a resolution before its contradiction was accepted")
	}
	if _, err := NewSet([]Record{contra, res}, false); err != nil {
		t.Errorf("a valid resolution was refused: %v", err)
	}
}

func TestClusters(t *testing.T) {
	r := func(id string, l *Lineage) Record { x := base(); x.ID, x.Lineage = id, l; return x }
	h := "sha256:" + strings.Repeat("b", 64)
	recs := []Record{
		r("ev_5", &Lineage{Memory: "mem_1"}),
		r("ev_2", &Lineage{Memory: "mem_2", DerivedFrom: []string{"mem_1"}}),
		r("ev_3", &Lineage{Memory: "mem_3", ContentHash: h}),
		r("ev_4", &Lineage{Memory: "mem_4", ContentHash: h, Supersedes: []string{"mem_7"}}),
		r("ev_6", &Lineage{Memory: "mem_7"}),
		r("ev_7", nil),
		r("ev_8", &Lineage{VersionRoot: "mem_2"}),
	}
	set, err := NewSet(recs, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ev_2", "ev_2", "ev_3", "ev_3", "ev_3", "ev_7", "ev_2"}
	for i := range recs {
		if got := set.Cluster(i); got != want[i] {
			t.Errorf("%s in cluster %s, want %s", recs[i].ID, got, want[i])
		}
	}
	if n := set.KeySizes().Cluster; n != 3 {
		t.Errorf("%d clusters, want 3", n)
	}
}

func TestLimits(t *testing.T) {
	many := func(n int, f func(i int, r *Record)) []Record {
		out := make([]Record, n)
		for i := range out {
			out[i] = base()
			out[i].ID = fmt.Sprintf("ev_%d", i)
			f(i, &out[i])
		}
		return out
	}
	for code, recs := range map[string][]Record{
		"too_many_reports":  many(MaxReports+1, func(int, *Record) {}),
		"too_many_memories": many(MaxMemories+1, func(i int, r *Record) { r.Lineage = &Lineage{Memory: fmt.Sprintf("mem_%d", i)} }),
		"too_many_lineage_nodes": many(MaxLineageNodes/2+1, func(i int, r *Record) {
			r.Lineage = &Lineage{VersionRoot: fmt.Sprintf("mem_%d", i), ContentHash: fmt.Sprintf("sha256:%064x", i)}
		}),
		"too_many_links": many(MaxLinks/2+1, func(i int, r *Record) { r.Lineage = &Lineage{DerivedFrom: []string{"mem_a", "mem_b"}} }),
	} {
		_, err := NewSet(recs, false)
		var e *Error
		if !errors.As(err, &e) || string(e.Code) != code || !errors.Is(err, ErrLimit) {
			t.Errorf("%s: got %v", code, err)
		}
	}
	at := many(MaxReports, func(i int, r *Record) { r.Lineage = &Lineage{Memory: fmt.Sprintf("mem_%d", i%MaxMemories)} })
	if _, err := NewSet(at, false); err != nil {
		t.Errorf("a set at the limits was refused: %v", err)
	}
}

func TestPseudonyms(t *testing.T) {
	p, q := NewPseudonyms([]byte("key one")), NewPseudonyms([]byte("key two"))
	// Pinned: HMAC-SHA-256 over prefix, 0x00, identifier; 15 bytes in
	// lower-case base32.
	if got := []string{p.Record("r1"), p.Actor("a1"), p.Operator("o1"), p.Memory("m1")}; !slices.Equal(got, []string{
		"ev_5sj425ew743jjlidh6gwjlk3", "act_odsravybh6tn6xos4p7qez6f", "op_zmb74ja4ek6pxtpjk7my5elf", "mem_uhr6ryxlehnv4q34s5bmvt6m"}) {
		t.Errorf("pseudonyms changed: %q", got)
	}
	a := p.Actor("agent-42")
	if a != p.Actor("agent-42") || a == q.Actor("agent-42") || a == p.Actor("agent-43") {
		t.Error("pseudonyms are not stable per key and distinct across keys and inputs")
	}
	if p.Operator("x") == p.Actor("x")[1:] || !strings.HasPrefix(p.Record("x"), "ev_") || !strings.HasPrefix(p.Memory("x"), "mem_") {
		t.Error("pseudonym kinds are not separated")
	}
	r := base()
	r.ID, r.Reporter, r.Operator = p.Record("r"), p.Actor("a"), p.Operator("o")
	if err := r.validate(); err != nil {
		t.Errorf("issued pseudonyms are not valid in a record: %v", err)
	}
}

func TestBlankAndIdentifiers(t *testing.T) {
	for s, want := range map[string]bool{"": true, " \t\r\n": true, "\u00a0\u3000": true, " x ": false, "\u00e9": false, "\u2028": true} {
		if blank(s) != want || (NormalizeLabel(s) == "") != want {
			t.Errorf("blank(%q) = %t, NormalizeLabel %q; want %t", s, blank(s), NormalizeLabel(s), want)
		}
	}
	for s, want := range map[string]bool{"ev_a": true, "ev_": false, "ev_a.b": false, "ev_" + strings.Repeat("x", 64): true,
		"ev_" + strings.Repeat("x", 65): false, "EV_a": false, "ev_A-z_9": true} {
		if pseudonym(s, "ev_") != want {
			t.Errorf("pseudonym(%q) = %t", s, !want)
		}
	}
	for s, want := range map[string]bool{"sha256:" + strings.Repeat("0f", 32): true, "sha256:" + strings.Repeat("0F", 32): false,
		"sha256:" + strings.Repeat("0", 63): false, "sha512:" + strings.Repeat("0", 64): false} {
		if ValidContentHash(s) != want {
			t.Errorf("ValidContentHash(%q) = %t", s, !want)
		}
	}
}
