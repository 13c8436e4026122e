package passport

import (
	"errors"
	"math"
	"strconv"

	"github.com/remnant/passportkit/internal/cjson"
)

// errSkillNumber is AppendCanonical's refusal of a number that has no
// guarded canonical form.
var errSkillNumber = errors.New("passport: a skill passport number is not finite or is an integer beyond ±(2^53−1)")

// maxSafe is the largest integer a canonical document may hold, 2^53−1.
const maxSafe = 1<<53 - 1

// AppendCanonical appends the canonical JSON (RFC 8785) of sp to dst,
// member by member in canonical order with no intermediate encoding: the
// bytes equal Marshal(sp), jcs(encoding/json), which a test and a fuzz
// target check. Members are left out as encoding/json leaves them out
// (omitempty, omitzero), text that is not valid UTF-8 is written with
// U+FFFD in place of each invalid byte, and a number that is not finite or
// is an integer beyond ±(2^53−1) is an error, as it is for Marshal.
func (sp *SkillPassport) AppendCanonical(dst []byte) ([]byte, error) {
	w := skillWriter{dst: dst}
	// Member names sorted by UTF-16 code units (all ASCII).
	w.open()
	if sp.AssessedAt != "" {
		w.str("assessedAt", sp.AssessedAt)
	}
	w.str("assessment", string(sp.Assessment))
	if sp.AssessmentHash != "" {
		w.str("assessmentHash", sp.AssessmentHash)
	}
	if sp.Calibration != "" {
		w.str("calibration", string(sp.Calibration))
	}
	w.bool("contested", sp.Contested)
	if sp.Corrections != 0 {
		w.int("corrections", sp.Corrections)
	}
	if sp.Coverage != (SkillCoverage{}) {
		c := &sp.Coverage
		w.object("coverage")
		w.int("contexts", c.Contexts)
		w.int("lineages", c.Lineages)
		w.int("observations", c.Observations)
		w.int("positions", c.Positions)
		w.close()
	}
	// omitzero compares the struct with ==, where -0 equals 0.
	if e := &sp.Effective; *e != (SkillCounts{}) {
		w.object("effective")
		w.float("binary", e.Binary)
		w.int("contexts", e.Contexts)
		w.float("contradictions", e.Contradictions)
		w.float("corroborations", e.Corroborations)
		w.float("failures", e.Failures)
		w.float("observations", e.Observations)
		w.int("operators", e.Operators)
		w.float("partial", e.Partial)
		w.float("successes", e.Successes)
		w.float("uncertain", e.Uncertain)
		w.int("validators", e.Validators)
		w.close()
	}
	if e := sp.Estimate; e != nil {
		w.object("estimate")
		w.float("lower", e.Lower)
		w.float("midpoint", e.Midpoint)
		w.float("upper", e.Upper)
		w.close()
	}
	w.str("evidenceLevel", string(sp.EvidenceLevel))
	if in := sp.Independence; in != nil {
		w.object("independence")
		w.int("builder", in.Builder)
		w.int("dataset", in.Dataset)
		w.int("framework", in.Framework)
		w.int("host", in.Host)
		w.int("modelFamily", in.ModelFamily)
		w.int("operator", in.Operator)
		w.int("project", in.Project)
		w.close()
	}
	if len(sp.Limitations) > 0 {
		w.strings("limitations", sp.Limitations)
	}
	if len(sp.Policies) > 0 {
		w.strings("policies", sp.Policies)
	}
	if r := sp.Recency; r != nil {
		w.object("recency")
		w.int("ageDays", r.AgeDays)
		w.str("latestEligible", r.LatestEligible)
		w.close()
	}
	w.str("skill", sp.Skill)
	if sp.SourceCount != 0 {
		w.int("sourceCount", sp.SourceCount)
	}
	if len(sp.Sources) > 0 {
		w.name("sources")
		w.dst = append(w.dst, '[')
		for i := range sp.Sources {
			s := &sp.Sources[i]
			if i > 0 {
				w.dst = append(w.dst, ',')
			}
			w.open()
			w.float("applicability", s.Applicability)
			w.str("contradiction", s.Contradiction)
			w.str("date", s.Date)
			w.str("evidence", s.Evidence)
			if s.Outcome != "" {
				w.str("outcome", s.Outcome)
			}
			w.str("quality", s.Quality)
			w.str("type", s.Type)
			w.float("weight", s.Weight)
			w.close()
		}
		w.dst = append(w.dst, ']')
		w.first = false
	}
	w.bool("stale", sp.Stale)
	w.str("state", string(sp.State))
	if sp.Visibility != "" {
		w.str("visibility", string(sp.Visibility))
	}
	w.close()
	if w.bad {
		return nil, errSkillNumber
	}
	return w.dst, nil
}

// skillWriter writes the members of nested objects, each after a comma
// unless it is its object's first; bad records a number with no guarded
// canonical form.
type skillWriter struct {
	dst   []byte
	first bool
	bad   bool
}

func (w *skillWriter) open() {
	w.dst = append(w.dst, '{')
	w.first = true
}

func (w *skillWriter) close() {
	w.dst = append(w.dst, '}')
	w.first = false
}

// name appends a member name and its colon.
func (w *skillWriter) name(n string) {
	if !w.first {
		w.dst = append(w.dst, ',')
	}
	w.dst = append(w.dst, '"')
	w.dst = append(w.dst, n...)
	w.dst = append(w.dst, '"', ':')
	w.first = false
}

func (w *skillWriter) object(n string) {
	w.name(n)
	w.open()
}

func (w *skillWriter) str(n, v string) {
	w.name(n)
	w.dst = cjson.AppendString(w.dst, v)
}

func (w *skillWriter) strings(n string, vs []string) {
	w.name(n)
	w.dst = append(w.dst, '[')
	for i, v := range vs {
		if i > 0 {
			w.dst = append(w.dst, ',')
		}
		w.dst = cjson.AppendString(w.dst, v)
	}
	w.dst = append(w.dst, ']')
}

func (w *skillWriter) bool(n string, v bool) {
	w.name(n)
	w.dst = strconv.AppendBool(w.dst, v)
}

func (w *skillWriter) int(n string, v int) {
	w.name(n)
	if v > maxSafe || v < -maxSafe {
		w.bad = true
	}
	w.dst = strconv.AppendInt(w.dst, int64(v), 10)
}

// float appends v in ECMAScript form. A value that is not finite has no
// JSON form; one from 2^53 up to 1e21 is written as an integer beyond the
// guard.
func (w *skillWriter) float(n string, v float64) {
	w.name(n)
	if a := math.Abs(v); math.IsNaN(v) || math.IsInf(v, 0) || a >= maxSafe+1 && a < 1e21 {
		w.bad = true
		return
	}
	w.dst = cjson.AppendNumber(w.dst, v)
}
