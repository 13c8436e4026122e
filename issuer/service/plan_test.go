package service

import (
	"fmt"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// The validation planner as pure tables: a store's read of a submission
// goes in; the response and the plan of writes (or the refusal) come out.

const (
	evaluator = 1
	author    = 2
)

var evaluatorP = issuer.Principal{Key: evaluator, AgentID: "agt_evaluator", Status: issuer.AgentActive,
	Scopes: []issuer.Scope{issuer.ScopeFeedback}}

// ruleService is a service whose decisions are deterministic; it has no
// store, so only its pure planning may be called.
func ruleService() *Service {
	return New(nil, Options{Now: func() time.Time { return ruleNow }, Rand: zeros{}})
}

// validationState is a read of the evaluator's validation of memories
// (key 10, 11, …, by author, retrieved), changed by mods.
func validationState(memories int, mods ...func(*ValidationState)) *ValidationState {
	st := &ValidationState{
		Authors: map[int64]reputation.Aggregate{}, Domains: map[AuthorDomain]reputation.Aggregate{},
		EvaluatorCredit: map[string][2]reputation.Milli{}, PositivePairs: map[int64]int{}, NegativePairs: map[int64]int{},
		DomainCounts: map[AuthorDomain]int{}, GlobalCounts: map[int64]int{},
	}
	for i := range memories {
		st.Targets = append(st.Targets, Target{PublicID: issuer.MemoryID(fmt.Sprint("mem_", i)), Domain: "sql",
			MemoryRecord: MemoryRecord{Key: int64(10 + i), Author: author, AuthorStatus: issuer.AgentActive,
				Status: issuer.MemoryActive, Visibility: issuer.MemoryPublic},
			Consumed: true, BaseConfidence: 500})
	}
	for _, m := range mods {
		m(st)
	}
	return st
}

// holding gives the evaluator a current position of type t on the first
// memory, set directly, or by the receipt when it is not 0.
func holding(t reputation.Type, reason string, receipt int64) func(*ValidationState) {
	return func(st *ValidationState) {
		ch := reputation.First(t, reputation.EvaluatorWeight(0, 0), reputation.Budgets{})
		st.Targets[0].Current = &CurrentPosition{Key: 77, Ref: issuer.ValidationRef{ID: "val_x", Type: t, Revision: 1},
			Reason: reason, Receipt: receipt, Direct: receipt == 0, Position: ch.Next}
		st.Targets[0].Summary.Add(ch.Next.Vote())
	}
}

// shape is what a plan writes, row by row, without the figures the
// reputation package computes.
func shape(plan *ValidationPlan) string {
	if plan == nil {
		return "no plan"
	}
	out := ""
	for _, p := range plan.Positions {
		out += fmt.Sprintf("position %d %s %s r%d (%d entries); ", p.Memory, p.Change, p.Ref.Type, p.Ref.Revision, len(p.Events))
	}
	for _, s := range plan.Summaries {
		out += fmt.Sprintf("summary %d evidence=%v; ", s.Memory, s.Evidence)
	}
	for _, a := range plan.Authors {
		out += fmt.Sprintf("author %d; ", a.Author)
	}
	for _, c := range plan.PositivePairs {
		out += fmt.Sprintf("positive budget %d=%d; ", c.Author, c.N)
	}
	for _, c := range plan.NegativePairs {
		out += fmt.Sprintf("negative budget %d=%d; ", c.Author, c.N)
	}
	if plan.FeedbackGiven > 0 {
		out += fmt.Sprintf("feedback given +%d; ", plan.FeedbackGiven)
	}
	if c := plan.Consultation; c != nil {
		out += fmt.Sprintf("consultation %d r%d; ", c.Key, c.Revision)
	}
	if o := plan.Outcome; o != nil {
		out += fmt.Sprintf("outcome %s position=%v; ", o.Outcome, o.Position != nil)
	}
	out += fmt.Sprintf("revisions %v", subjects(plan.Revisions))
	if a := plan.Audit; a != nil {
		out += fmt.Sprintf("; audit %s %v", a.Action, a.Detail["memories"])
	}
	if plan.Idempotency != nil {
		out += "; idempotency key"
	}
	return out
}

func TestPlanFeedback(t *testing.T) {
	corroborate := issuer.Feedback{Type: reputation.Corroborate}
	keyed := issuer.Feedback{Type: reputation.Corroborate, IdempotencyKey: "k1"}
	recorded := func(f issuer.Feedback, response string) func(*ValidationState) {
		return func(st *ValidationState) {
			st.Prior = &IdempotencyRecord{Fingerprint: f.Fingerprint("memory:mem_0"), Response: []byte(response)}
		}
	}
	tests := []struct {
		name     string
		st       *ValidationState
		f        issuer.Feedback
		refused  issuer.Code
		replayed bool
		want     string
	}{
		{name: "unknown memory", st: validationState(0), f: corroborate, refused: issuer.CodeNotFound},
		{name: "quarantined memory", st: validationState(1, func(st *ValidationState) { st.Targets[0].Status = issuer.MemoryQuarantined }),
			f: corroborate, refused: issuer.CodeNotFound},
		{name: "own memory", st: validationState(1, func(st *ValidationState) { st.Targets[0].Author = evaluator }),
			f: corroborate, refused: issuer.CodeSelfFeedback},
		{name: "not retrieved", st: validationState(1, func(st *ValidationState) { st.Targets[0].Consumed = false }),
			f: corroborate, refused: issuer.CodeConsumptionRequired},
		{name: "same operator", st: validationState(1, func(st *ValidationState) { st.Targets[0].SameOwner = true }),
			f: corroborate, refused: issuer.CodeSameOwner},
		{name: "a first position", st: validationState(1), f: corroborate,
			want: "position 10 position corroborate r1 (1 entries); summary 10 evidence=true; author 2; positive budget 2=1; feedback given +1; revisions [2]"},
		{name: "a first position under a key", st: validationState(1), f: keyed,
			want: "position 10 position corroborate r1 (1 entries); summary 10 evidence=true; author 2; positive budget 2=1; feedback given +1; revisions [2]; idempotency key"},
		{name: "an exact repeat writes nothing", st: validationState(1, holding(reputation.Corroborate, "", 0)), f: corroborate,
			want: "revisions []"},
		{name: "a new reason: a detail revision, no reputation effect",
			st: validationState(1, holding(reputation.Corroborate, "", 0)), f: issuer.Feedback{Type: reputation.Corroborate, Reason: "why"},
			want: "position 10 detail corroborate r2 (0 entries); revisions [2]"},
		{name: "a change of type compensates the previous contribution",
			st: validationState(1, holding(reputation.Corroborate, "", 0)), f: issuer.Feedback{Type: reputation.Contradict},
			want: "position 10 position contradict r2 (2 entries); summary 10 evidence=true; author 2; negative budget 2=1; revisions [2]"},
		{name: "a position the consultation set becomes direct: counted once",
			st: validationState(1, holding(reputation.Corroborate, "", 9)), f: corroborate,
			want: "position 10 detail corroborate r2 (0 entries); feedback given +1; revisions [2]"},
		{name: "a replay under the same key", st: validationState(1, recorded(keyed, `{"ok":true}`)), f: keyed, replayed: true,
			want: "no plan"},
		{name: "a key used with other input", st: validationState(1, recorded(issuer.Feedback{Type: reputation.Contradict}, `{}`)), f: keyed,
			refused: issuer.CodeIdempotencyConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, plan, replayed, err := ruleService().planFeedback(tt.st, evaluatorP, "mem_0", tt.f, issuer.TransportHTTP)
			wantRefusal(t, err, tt.refused)
			if err != nil {
				if plan != nil {
					t.Fatal("a refusal came with a plan")
				}
				return
			}
			if got := shape(plan); got != tt.want || replayed != tt.replayed {
				t.Fatalf("plan: %s (replayed %v)\nwant: %s (replayed %v)", got, replayed, tt.want, tt.replayed)
			}
			if !res.OK {
				t.Fatalf("response %+v", res)
			}
		})
	}
}

func TestPlanReceiptFeedback(t *testing.T) {
	useful := issuer.Feedback{Type: reputation.Useful}
	receipt := func(consumed, sameOwner int, fb *ConsultationFeedback) func(*ValidationState) {
		return func(st *ValidationState) {
			st.Receipt = &ReceiptState{Key: 9, Agent: evaluator, Consumed: consumed, SameOwner: sameOwner, Feedback: fb}
		}
	}
	given := &ConsultationFeedback{Key: 3, Type: reputation.Useful, Revision: 1}
	tests := []struct {
		name    string
		st      *ValidationState
		f       issuer.Feedback
		refused issuer.Code
		want    string
		skipped int
	}{
		{name: "unknown receipt", st: validationState(2), f: useful, refused: issuer.CodeNotFound},
		{name: "another agent's receipt", st: validationState(2, receipt(2, 0, nil), func(st *ValidationState) { st.Receipt.Agent = 8 }),
			f: useful, refused: issuer.CodeNotFound},
		{name: "it activated the evaluator's own memory", st: validationState(2, receipt(2, 0, nil), func(st *ValidationState) { st.Targets[1].Author = evaluator }),
			f: useful, refused: issuer.CodeSelfFeedback},
		{name: "a memory without its consumption", st: validationState(2, receipt(1, 0, nil)), f: useful, refused: issuer.CodeConsumptionRequired},
		{name: "a memory of a same-owner agent", st: validationState(2, receipt(2, 1, nil)), f: useful, refused: issuer.CodeSameOwner},
		{name: "a first validation reaches every memory",
			st: validationState(2, receipt(2, 0, nil)), f: useful,
			want: "position 10 position useful r1 (1 entries); position 11 position useful r1 (1 entries); summary 10 evidence=true; summary 11 evidence=true; " +
				"author 2; positive budget 2=2; feedback given +1; consultation 0 r1; revisions [2]; audit consultation.validation_recorded 2"},
		{name: "a memory no longer visible is skipped",
			st: validationState(2, receipt(2, 0, nil), func(st *ValidationState) { st.Targets[1].Status = issuer.MemoryRemoved }), f: useful,
			want: "position 10 position useful r1 (1 entries); summary 10 evidence=true; author 2; positive budget 2=1; feedback given +1; " +
				"consultation 0 r1; revisions [2]; audit consultation.validation_recorded 1", skipped: 1},
		{name: "an unchanged repeat is audited alone",
			st: validationState(2, receipt(2, 0, given), holding(reputation.Useful, "", 9)), f: useful,
			want: "revisions []; audit consultation.validation_repeated 2", skipped: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, plan, _, err := ruleService().planReceiptFeedback(tt.st, evaluatorP, "rct_r", tt.f, issuer.TransportMCP)
			wantRefusal(t, err, tt.refused)
			if err != nil {
				return
			}
			if got := shape(plan); got != tt.want {
				t.Fatalf("plan: %s\nwant: %s", got, tt.want)
			}
			if len(res.Skipped) != tt.skipped {
				t.Fatalf("skipped %+v, want %d", res.Skipped, tt.skipped)
			}
		})
	}
}

func TestPlanOutcome(t *testing.T) {
	tests := []struct {
		outcome evidence.Outcome
		want    string
	}{
		{evidence.OutcomeSuccess, "position 10 position used_successfully r1 (1 entries); summary 10 evidence=true; author 2; positive budget 2=1; " +
			"feedback given +1; outcome success position=true; revisions [2]"},
		{evidence.OutcomeFailure, "position 10 position used_unsuccessfully r1 (1 entries); summary 10 evidence=true; author 2; negative budget 2=1; " +
			"feedback given +1; outcome failure position=true; revisions [2]"},
		// No position, but evidence about the author all the same.
		{evidence.OutcomePartial, "outcome partial position=false; revisions [2]"},
	}
	for _, tt := range tests {
		t.Run(string(tt.outcome), func(t *testing.T) {
			_, plan, _, err := ruleService().planOutcome(validationState(1), evaluatorP, "mem_0", issuer.OutcomeReport{Outcome: tt.outcome}, issuer.TransportHTTP)
			if err != nil {
				t.Fatal(err)
			}
			if got := shape(plan); got != tt.want {
				t.Fatalf("plan: %s\nwant: %s", got, tt.want)
			}
		})
	}
}
