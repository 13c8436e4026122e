package skilltrust_test

import (
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// TestSourceOrderExtendsPreviews: the order of every source starts with
// the skill passport's previews, keeps every source once, and agrees with
// SourceKey.Compare, on varied assessments.
func TestSourceOrderExtendsPreviews(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 60 {
		recs := randomRecords(rng, 1+n*3)
		for _, task := range tasks {
			a := mustAssess(t, recs, task)
			sp, err := a.SkillPassport()
			if err != nil {
				t.Fatal(err)
			}
			order := skilltrust.SourceOrder(a.Sources)
			if len(order) != len(a.Sources) || len(order) != sp.SourceCount {
				t.Fatalf("%d ordered of %d sources (sourceCount %d)", len(order), len(a.Sources), sp.SourceCount)
			}
			seen := map[int]bool{}
			for i, o := range order {
				if seen[o] {
					t.Fatalf("source %d listed twice", o)
				}
				seen[o] = true
				if i > 0 {
					if c := a.Sources[order[i-1]].Key().Compare(a.Sources[o].Key()); c >= 0 {
						t.Fatalf("sources %d and %d out of order (compare %d)", order[i-1], o, c)
					}
				}
			}
			for i, p := range sp.Sources {
				if got := a.Sources[order[i]].ID; got != p.Evidence {
					t.Fatalf("case %d %s: source %d of the order is %s, preview %d is %s", n, task.Skill, i, got, i, p.Evidence)
				}
			}
		}
	}
}

// TestLimitationSentences: every limitation code SPEC.md §4.13 lists has a
// sentence, and the package knows no code the specification does not list.
func TestLimitationSentences(t *testing.T) {
	spec, err := os.ReadFile("../SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(spec), "### 4.13 Limitation codes")
	section, _, _ = strings.Cut(section, "\n### ")
	var listed []skilltrust.Limitation
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed = append(listed, skilltrust.Limitation(m[1]))
	}
	if len(listed) < 10 {
		t.Fatalf("read %d codes from SPEC.md §4.13", len(listed))
	}
	slices.Sort(listed)
	if got := skilltrust.Limitations(); !slices.Equal(got, listed) {
		t.Fatalf("Limitations() = %v, SPEC.md §4.13 lists %v", got, listed)
	}
	for _, l := range listed {
		if txt := l.Text(); strings.Contains(txt, string(l)) || !strings.HasSuffix(txt, ".") {
			t.Errorf("%s has no sentence of its own: %q", l, txt)
		}
	}
	if txt := skilltrust.Limitation("made_up").Text(); !strings.Contains(txt, "made_up") {
		t.Errorf("an unknown code reads %q", txt)
	}
}

// TestWhy: the explanation covers every grade, limitation and unmet
// threshold of the assessment, names no label value, actor, operator or
// record, and says when there is no evidence at all.
func TestWhy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	recs := randomRecords(rng, 120)
	for i := range recs {
		if recs[i].Context.Workload != "" {
			recs[i].Context.Workload = "secret-label-" + recs[i].Context.Workload
		}
	}
	leaks := regexp.MustCompile(`act_|op_|ev_|mem_|secret-label`)
	for _, task := range []skilltrust.Task{
		{Skill: "PostgreSQL indexing"},
		{Skill: "PostgreSQL", Context: evidence.Context{Workload: "secret-label-oltp", Domain: "payments"}},
	} {
		a := mustAssess(t, recs, task)
		w := a.Why()
		js := mustJSON(t, w)
		if leaks.MatchString(js) {
			t.Errorf("%s: the explanation names an identity or label: %s", task.Skill, js)
		}
		if w.Assessment.Code != string(a.Assessment) || w.Assessment.Text == "" || w.State.Text == "" || w.EvidenceLevel.Text == "" ||
			w.Estimate == "" || w.Sources == "" || w.Context == "" || !strings.Contains(w.Summary, a.Skill) {
			t.Errorf("%s: incomplete explanation %s", task.Skill, js)
		}
		if len(w.Limitations) != len(a.Limitations) || len(w.HeldBackBy) != len(a.HeldBackBy) {
			t.Errorf("%s: %d limitations and %d thresholds explained of %d and %d", task.Skill, len(w.Limitations), len(w.HeldBackBy), len(a.Limitations), len(a.HeldBackBy))
		}
		capped := slices.ContainsFunc(a.Groups, func(g skilltrust.Group) bool { return g.Factor < 1 })
		if capped != (len(w.Caps) > 0) || capped != slices.Contains(a.Limitations, skilltrust.LimitCapsApplied) {
			t.Errorf("%s: caps %v against groups capped %t", task.Skill, w.Caps, capped)
		}
		if len(task.Context.Values()[0]) > 0 && !strings.Contains(w.Context, "domain, workload") {
			t.Errorf("%s: context sentence %q does not name the stated dimensions", task.Skill, w.Context)
		}
	}

	none := mustAssess(t, recs, skilltrust.Task{Skill: "Kubernetes operators"})
	w := none.Why()
	if none.State != passport.StateNew || none.Estimate != nil || !strings.HasPrefix(w.Summary, "No evidence for kubernetes operators") ||
		!strings.HasPrefix(w.Estimate, "N/A") {
		t.Errorf("a skill without evidence: %s, %s", none.State, mustJSON(t, w))
	}
	if w.Limitations[0].Code != string(skilltrust.LimitUnknownSkill) {
		t.Errorf("an unknown skill's limitations: %v", w.Limitations)
	}
}

// TestThresholdText: thresholds read as sentences with their figures.
func TestThresholdText(t *testing.T) {
	for _, c := range []struct {
		th   skilltrust.Threshold
		want string
	}{
		{skilltrust.Threshold{Name: "estimate.binary_outcomes", Required: 5, Actual: 1.256}, "An estimate needs 5 effective success or failure outcomes; there are 1.26."},
		{skilltrust.Threshold{Name: "moderate.contexts", Required: 2, Actual: 1}, "The MODERATE level needs 2 distinct contexts; there are 1."},
		{skilltrust.Threshold{Name: "estimate.independent_operators", Required: 2, Actual: 1}, "An estimate needs 2 independent operators with a success or failure outcome; there are 1."},
		{skilltrust.Threshold{Name: "moderate.independent_operators", Required: 3, Actual: 2}, "The MODERATE level needs 3 independent operators; there are 2."},
		{skilltrust.Threshold{Name: "strong.complete_collection", Required: 1}, "The STRONG level needs a complete collection; this one was cut at the collection limits."},
	} {
		if got := c.th.Text(); got != c.want {
			t.Errorf("%s: %q, want %q", c.th.Name, got, c.want)
		}
	}
}
