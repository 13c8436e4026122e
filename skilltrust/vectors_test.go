package skilltrust_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/skilltrust"
	vectors "github.com/remnant/passportkit/vectors/skilltrust"
)

// TestVectors runs every conformance vector through the package.
func TestVectors(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			out, code := assessCase(t, c)
			if c.Fail() {
				if err := vectors.CheckError(c.Expect, code); err != nil {
					t.Fatal(err)
				}
				return
			}
			if code != "" {
				t.Fatalf("refused with %s", code)
			}
			if err := vectors.Check(c.Expect, out); err != nil {
				t.Errorf("%s (%s): %v", c.Rule, c.Description, err)
			}
			if err := vectors.CheckSkillPassport(c.Expect, skillPassportJSON(t, c)); err != nil {
				t.Errorf("%s (%s): %v", c.Rule, c.Description, err)
			}
		})
	}
}

// assessCase returns the assessment JSON, or the reason code of a refusal.
func assessCase(t *testing.T, c vectors.Case) ([]byte, string) {
	t.Helper()
	set, err := evidence.Parse(c.Evidence)
	if err != nil {
		var ee *evidence.Error
		if !errors.As(err, &ee) {
			t.Fatalf("parse error without a reason code: %v", err)
		}
		return nil, string(ee.Code)
	}
	task := skilltrust.Task{Skill: c.Task.Skill}
	for k, v := range c.Task.Context {
		if !task.Context.Set(k, v) {
			t.Fatalf("unknown context dimension %q", k)
		}
	}
	a, err := skilltrust.Assess(set, task, evidence.MustDate(c.At))
	if errors.Is(err, skilltrust.ErrTask) {
		return nil, string(skilltrust.CodeInvalidTask)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return b, ""
}

// skillPassportJSON returns the case's assessment as a skill passport.
func skillPassportJSON(t *testing.T, c vectors.Case) []byte {
	t.Helper()
	set, err := evidence.Parse(c.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	task := skilltrust.Task{Skill: c.Task.Skill}
	for k, v := range c.Task.Context {
		task.Context.Set(k, v)
	}
	a, err := skilltrust.Assess(set, task, evidence.MustDate(c.At))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := a.SkillPassport()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
