package reputation

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

func TestTypesAndBasePoints(t *testing.T) {
	want := map[Type]Milli{
		Corroborate: 1000, Contradict: -1000,
		Useful: 500, NotUseful: -500,
		UsedSuccessfully: 2000, UsedUnsuccessfully: -2000,
	}
	if len(Types) != len(want) {
		t.Fatalf("%d types, want %d", len(Types), len(want))
	}
	for _, typ := range Types {
		if got := typ.Points(); got != want[typ] {
			t.Errorf("%s points = %v, want %v", typ, got, want[typ])
		}
		wantPol := Positive
		if want[typ] < 0 {
			wantPol = Negative
		}
		if typ.Polarity() != wantPol {
			t.Errorf("%s polarity = %v, want %v", typ, typ.Polarity(), wantPol)
		}
		parsed, err := ParseType(string(typ))
		if err != nil || parsed != typ {
			t.Errorf("ParseType(%q) = %q, %v", typ, parsed, err)
		}
	}
	for _, bad := range []string{"", "Corroborate", "confirm", "corroborate "} {
		if _, err := ParseType(bad); !errors.Is(err, ErrUnknownType) {
			t.Errorf("ParseType(%q) error = %v, want ErrUnknownType", bad, err)
		}
	}
}

func TestLegacyVerdictMapping(t *testing.T) {
	for _, c := range []struct {
		verdict string
		want    Type
	}{
		{"confirm", Corroborate},
		{"contradict", Contradict},
		{"outdated", NotUseful},
		{"irrelevant", NotUseful},
	} {
		v, err := ParseVerdict(c.verdict)
		if err != nil {
			t.Fatalf("ParseVerdict(%q): %v", c.verdict, err)
		}
		if v.Type() != c.want {
			t.Errorf("%s maps to %s, want %s", c.verdict, v.Type(), c.want)
		}
	}
	if _, err := ParseVerdict("corroborate"); !errors.Is(err, ErrUnknownVerdict) {
		t.Errorf("ParseVerdict(corroborate) error = %v, want ErrUnknownVerdict", err)
	}
}

func TestEvaluatorWeightIsDomainCredibility(t *testing.T) {
	for _, c := range []struct {
		name              string
		score, confidence Milli
		want              Milli
	}{
		{"newcomer", 0, 0, 500},
		{"at both thresholds", 5000, 500, 1000},
		{"high score and confidence", 40000, 1000, 1000},
		{"score just short", 4999, 1000, 500},
		{"confidence just short", 9000, 499, 500},
		{"negative score", -5000, 1000, 500},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := EvaluatorWeight(c.score, c.confidence); got != c.want {
				t.Errorf("EvaluatorWeight(%v, %v) = %v, want %v", c.score, c.confidence, got, c.want)
			}
		})
	}
}

func TestPairFactorsPerRank(t *testing.T) {
	want := []Milli{1000, 500, 250, 125, 62, 0, 0, 0}
	for rank, w := range want {
		if got := PairFactor(rank); got != w {
			t.Errorf("PairFactor(%d) = %v, want %v", rank, got, w)
		}
	}
	if PairFactor(-1) != 0 {
		t.Error("PairFactor(-1) is not zero")
	}
}

func TestThousandthsRounding(t *testing.T) {
	// Effective weight rounds down.
	for _, c := range []struct{ base, factor, want Milli }{
		{500, 1000, 500},
		{500, 500, 250},
		{500, 125, 62}, // 0.0625 → 0.062
		{500, 62, 31},
		{1000, 62, 62},
		{500, 0, 0},
	} {
		if got := EffectiveWeight(c.base, c.factor); got != c.want {
			t.Errorf("EffectiveWeight(%v, %v) = %v, want %v", c.base, c.factor, got, c.want)
		}
	}
	// Contributions round to the nearest thousandth, halves away from zero,
	// so positive and negative twins mirror each other.
	for _, c := range []struct {
		typ    Type
		weight Milli
		want   Milli
	}{
		{Useful, 31, 16},     // 0.0155 → 0.016
		{NotUseful, 31, -16}, // −0.0155 → −0.016
		{Useful, 125, 63},    // 0.0625 → 0.063
		{Contradict, 62, -62},
		{UsedSuccessfully, 31, 62},
		{Corroborate, 0, 0},
	} {
		if got := Contribution(c.typ, c.weight); got != c.want {
			t.Errorf("Contribution(%s, %v) = %v, want %v", c.typ, c.weight, got, c.want)
		}
	}
}

// TestWorkedFigures checks the figures the policy states for a novice: its
// first corroboration of an author contributes 0.5, a corroboration of a
// second memory of the same author 0.25, and its first contradiction of that
// author −0.5, since criticism has its own budget.
func TestWorkedFigures(t *testing.T) {
	var b Budgets
	first := First(Corroborate, NoviceWeight, b)
	if first.Apply != 500 || first.Compensation != 0 || !first.TookPositiveRank {
		t.Fatalf("first corroboration: %+v, want apply 0.5", first)
	}
	b.Positive++
	second := First(Corroborate, NoviceWeight, b)
	if second.Apply != 250 {
		t.Fatalf("second memory: apply %v, want 0.25", second.Apply)
	}
	b.Positive++
	contra := First(Contradict, NoviceWeight, b)
	if contra.Apply != -500 || !contra.TookNegativeRank || contra.TookPositiveRank {
		t.Fatalf("first contradiction: %+v, want apply −0.5 from the negative budget", contra)
	}
}

func TestBudgetSequenceExhausts(t *testing.T) {
	want := []Milli{1000, 500, 250, 125, 62, 0, 0}
	var b Budgets
	for i, w := range want {
		ch := First(Corroborate, CredibleWeight, b)
		if ch.Apply != w {
			t.Errorf("position %d: apply %v, want %v", i+1, ch.Apply, w)
		}
		if !ch.TookPositiveRank {
			t.Errorf("position %d did not take a rank", i+1)
		}
		b.Positive++
	}
	// An exhausted position is still recorded with an apply entry of zero.
	ch := First(UsedUnsuccessfully, CredibleWeight, Budgets{Negative: 9})
	if ch.Apply != 0 || ch.Next.Weighted() {
		t.Errorf("exhausted negative budget: %+v", ch)
	}
}

func TestReplacementCompensatesAndKeepsFrozenWeight(t *testing.T) {
	first := First(Corroborate, NoviceWeight, Budgets{})
	// The evaluator has since become credible; the position keeps 0.5.
	ch := first.Next.Replace(UsedSuccessfully, Budgets{Positive: 1})
	if ch.Compensation != -500 || ch.Apply != 1000 {
		t.Errorf("same-polarity replacement: %+v, want compensation −0.5, apply 1", ch)
	}
	if ch.Next.BaseWeight != NoviceWeight || ch.TookPositiveRank {
		t.Errorf("replacement changed the frozen weight or took a new rank: %+v", ch.Next)
	}
}

func TestPolaritySwitchRanksOnceAndSwitchingBackReusesWeight(t *testing.T) {
	// The pair has already used two positive ranks and one negative rank.
	b := Budgets{Positive: 2, Negative: 1}
	first := First(Corroborate, NoviceWeight, b) // rank 2: factor 0.25
	if first.Apply != 125 {
		t.Fatalf("first: apply %v, want 0.125", first.Apply)
	}
	b.Positive++
	toNeg := first.Next.Replace(Contradict, b) // first negative rank here: rank 1, factor 0.5
	if !toNeg.TookNegativeRank || toNeg.Compensation != -125 || toNeg.Apply != -250 {
		t.Fatalf("switch to negative: %+v", toNeg)
	}
	b.Negative++
	b.Positive += 3 // other positions spent the positive budget meanwhile
	back := toNeg.Next.Replace(Useful, b)
	if back.TookPositiveRank || back.TookNegativeRank {
		t.Fatalf("switching back took a new rank: %+v", back)
	}
	if back.Next.PositiveFactor != 250 || back.Apply != 63 || back.Compensation != 250 {
		t.Fatalf("switching back: %+v, want the saved factor 0.25", back)
	}
}

func TestAggregateSampleAndCounts(t *testing.T) {
	var a Aggregate
	pos := &Position{Type: Corroborate, EffectiveWeight: 500, Contribution: 500}
	neg := &Position{Type: Contradict, EffectiveWeight: 500, Contribution: -500}
	zero := &Position{Type: Useful, EffectiveWeight: 0, Contribution: 0}

	var e1, e2, e3 int
	a, e1 = a.Move(nil, pos, e1)
	a, e1 = a.Move(nil, pos, e1) // same evaluator, second memory
	a, e2 = a.Move(nil, neg, e2) // negative evaluators are part of the sample
	a, e3 = a.Move(nil, zero, e3)
	if a.Evaluators != 2 || a.Positive != 2 || a.Negative != 1 || a.Raw != 500 {
		t.Fatalf("aggregate %+v, want 2 evaluators, 2 positive, 1 negative, raw 0.5", a)
	}
	if e1 != 2 || e2 != 1 || e3 != 0 {
		t.Fatalf("held counts %d %d %d", e1, e2, e3)
	}
	if a.Confidence() != 200 {
		t.Errorf("confidence %v, want 0.2", a.Confidence())
	}
	a, e1 = a.Move(pos, nil, e1)
	if a.Evaluators != 2 {
		t.Errorf("evaluator left the sample while holding a position")
	}
	a, _ = a.Move(pos, neg, e1)
	if a.Evaluators != 2 || a.Positive != 0 || a.Negative != 2 || a.Raw != -1000 {
		t.Errorf("after switches: %+v", a)
	}
	full := Aggregate{Evaluators: 14}
	if full.Confidence() != One {
		t.Errorf("confidence of 14 evaluators = %v, want 1", full.Confidence())
	}
}

func TestScoreClampsButRawReverses(t *testing.T) {
	a := Aggregate{Raw: 100_500}
	if a.Score() != ScoreBound {
		t.Fatalf("score %v, want 100", a.Score())
	}
	p := &Position{Type: Corroborate, EffectiveWeight: 1000, Contribution: 1000}
	a, _ = a.Move(p, nil, 1)
	if a.Score() != 99_500 {
		t.Errorf("withdrawing 1 at the boundary gives %v, want 99.5", a.Score())
	}
	if (Aggregate{Raw: -250_000}).Score() != -ScoreBound {
		t.Error("negative scores are not clamped")
	}
}

func TestTrustLevels(t *testing.T) {
	for _, c := range []struct {
		score      Milli
		evaluators int
		want       TrustLevel
	}{
		{0, 0, TrustNew},
		{30_000, 10, TrustHighTrust},
		{29_999, 10, TrustTrusted},
		{30_000, 9, TrustTrusted},
		{10_000, 5, TrustTrusted},
		{10_000, 4, TrustObserved},
		{9_999, 50, TrustObserved},
		{2_000, 2, TrustObserved},
		{2_000, 1, TrustNew},
		{1_999, 40, TrustNew},
		{-5_000, 40, TrustNew},
	} {
		if got := Trust(c.score, c.evaluators); got != c.want {
			t.Errorf("Trust(%v, %d) = %s, want %s", c.score, c.evaluators, got, c.want)
		}
	}
}

func TestKnowledgeStatesInRuleOrder(t *testing.T) {
	cred := func(t Type) Vote { return Vote{Type: t, EffectiveWeight: 1000, Credible: true} }
	nov := func(t Type, w Milli) Vote { return Vote{Type: t, EffectiveWeight: w} }
	five := []Vote{cred(Corroborate), cred(Useful), cred(UsedSuccessfully), nov(Corroborate, 500), nov(Corroborate, 500)}
	for _, c := range []struct {
		name  string
		votes []Vote
		want  KnowledgeState
	}{
		{"no votes", nil, StateNew},
		{"only zero-weight votes", []Vote{nov(Corroborate, 0), nov(Contradict, 0)}, StateNew},
		{"one novice corroboration", []Vote{nov(Corroborate, 500)}, StateObserved},
		{"contested by both sides at 0.5", []Vote{nov(Corroborate, 500), nov(Contradict, 500)}, StateContested},
		{"contested by negative weight 1", []Vote{cred(NotUseful)}, StateContested},
		{"negative 0.75 alone is observed", []Vote{nov(Contradict, 500), nov(Contradict, 250)}, StateObserved},
		{"corroborated", []Vote{nov(Corroborate, 500), nov(Useful, 500)}, StateCorroborated},
		{"two positives below weight 1", []Vote{nov(Corroborate, 500), nov(Useful, 250)}, StateObserved},
		{"robust", five, StateRobust},
		{"robust needs three credible", append([]Vote{cred(Corroborate), cred(Useful), nov(Corroborate, 1000)}, nov(Corroborate, 500), nov(Corroborate, 500)), StateCorroborated},
		{"robust tolerates negative 0.25", append(append([]Vote{}, five...), nov(Contradict, 250)), StateRobust},
		{"robust refuses negative above 0.25", append(append([]Vote{}, five...), nov(Contradict, 251)), StateCorroborated},
		{"contest wins over robust", append(append([]Vote{}, five...), cred(Contradict)), StateContested},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.votes...)
			if s.State != c.want {
				t.Errorf("state %s, want %s (summary %+v)", s.State, c.want, s)
			}
		})
	}
}

func TestRobustRequiresNinetyPercentShare(t *testing.T) {
	s := Summary{PositiveValidators: 5, CrediblePositiveValidators: 3, PositiveWeight: 3000, NegativeWeight: 250, NegativeValidators: 1}
	if Classify(s) != StateRobust {
		t.Fatalf("share 92%%: %s", Classify(s))
	}
	// A share below 90% needs positive weight below 2.25 with negative 0.25,
	// which the weight floor of 3 already excludes; check the share rule on
	// its own by relaxing nothing else.
	s.PositiveWeight = 2249
	if Classify(s) == StateRobust {
		t.Error("positive weight under 3 classified robust")
	}
}

func TestSummaryCountsZeroWeightVotesWithoutAdvancing(t *testing.T) {
	s := Summarize(Vote{Type: Corroborate, EffectiveWeight: 500}, Vote{Type: Corroborate, EffectiveWeight: 0, Credible: true})
	if s.IndependentValidators != 2 || s.Counts.Corroborate != 2 {
		t.Errorf("zero-weight vote hidden: %+v", s)
	}
	if s.PositiveValidators != 1 || s.CredibleValidators != 0 || s.PositiveWeight != 500 {
		t.Errorf("zero-weight vote advanced confidence: %+v", s)
	}
	s.Remove(Vote{Type: Corroborate, EffectiveWeight: 500})
	if s.State != StateNew || s.IndependentValidators != 1 {
		t.Errorf("after removal: %+v", s)
	}
}

func TestNumericConfidence(t *testing.T) {
	for _, c := range []struct {
		base, pw, nw, want Milli
	}{
		{500, 0, 0, 500},
		{500, 1000, 0, 530},
		{500, 0, 1000, 440},
		{500, 500, 0, 515},
		{500, 250, 0, 508}, // 0.0075 → 0.008
		{990, 2000, 0, 1000},
		{30, 0, 1000, 0},
	} {
		s := Summary{PositiveWeight: c.pw, NegativeWeight: c.nw}
		if got := s.Confidence(c.base); got != c.want {
			t.Errorf("Confidence(%v) with +%v −%v = %v, want %v", c.base, c.pw, c.nw, got, c.want)
		}
	}
}

func TestNormalizeDomain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Power BI / Performance", "power bi / performance"},
		{"  Power\t\tBI  /\n Performance ", "power bi / performance"},
		{"ＰＯＷＥＲ　ＢＩ", "power bi"},           // fullwidth letters and ideographic space (NFKC)
		{"Power\u00a0BI", "power bi"},      // no-break space
		{"\ufeffPostgreSQL", "postgresql"}, // byte order mark
		{"C++ / Rust!", "c++ / rust!"},
		{"ΟΔΟΣ", "οδος"},
		{"", ""},
		{"   ", ""},
	} {
		if got := NormalizeDomain(c.in); got != c.want {
			t.Errorf("NormalizeDomain(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestReplayMatchesIncrementalAggregates(t *testing.T) {
	// Evaluator 1 corroborates memories 10 and 11, then turns 10 into a
	// contradiction; evaluator 2 uses memory 12 in another domain.
	type step struct {
		memory, evaluator int64
		domain            string
		typ               Type
	}
	steps := []step{{10, 1, "sql", Corroborate}, {11, 1, "sql", Corroborate}, {10, 1, "sql", Contradict}, {12, 2, "go", UsedSuccessfully}}
	positions := map[[2]int64]*Position{}
	budgets := map[int64]*Budgets{}
	var global Aggregate
	domains := map[string]Aggregate{}
	held := map[string]int{}
	var replay Replay
	for _, s := range steps {
		b := budgets[s.evaluator]
		if b == nil {
			b = &Budgets{}
			budgets[s.evaluator] = b
		}
		key := [2]int64{s.memory, s.evaluator}
		prev := positions[key]
		var ch Change
		if prev == nil {
			ch = First(s.typ, NoviceWeight, *b)
		} else {
			ch = prev.Replace(s.typ, *b)
		}
		if ch.TookPositiveRank {
			b.Positive++
		}
		if ch.TookNegativeRank {
			b.Negative++
		}
		next := ch.Next
		positions[key] = &next
		dk := s.domain + "/" + string(rune('0'+s.evaluator))
		gk := "*/" + string(rune('0'+s.evaluator))
		domains[s.domain], held[dk] = domains[s.domain].Move(prev, &next, held[dk])
		global, held[gk] = global.Move(prev, &next, held[gk])
		if ch.Compensation != 0 {
			replay.Add(Entry{Phase: PhaseCompensation, Memory: s.memory, Evaluator: s.evaluator, Domain: s.domain, Type: prev.Type, Weight: prev.EffectiveWeight, Delta: ch.Compensation})
		}
		replay.Add(Entry{Phase: PhaseApply, Memory: s.memory, Evaluator: s.evaluator, Domain: s.domain, Type: s.typ, Weight: next.EffectiveWeight, Delta: ch.Apply})
	}
	got := replay.Result()
	if got.Global != global {
		t.Errorf("replayed global %+v, incremental %+v", got.Global, global)
	}
	for d, a := range domains {
		if got.Domains[d] != a {
			t.Errorf("domain %s: replayed %+v, incremental %+v", d, got.Domains[d], a)
		}
	}
	if got.GlobalEvaluators[1] != 2 || got.DomainEvaluators["go"][2] != 1 {
		t.Errorf("evaluator counters %+v %+v", got.GlobalEvaluators, got.DomainEvaluators)
	}
	if replay.Entries() != 5 {
		t.Errorf("replayed %d entries, want 5", replay.Entries())
	}
}

func TestMilliText(t *testing.T) {
	for _, c := range []struct {
		m    Milli
		want string
	}{
		{0, "0"}, {500, "0.5"}, {-62, "-0.062"}, {1000, "1"}, {-100000, "-100"}, {1250, "1.25"}, {7, "0.007"},
	} {
		if got := c.m.String(); got != c.want {
			t.Errorf("%d formats as %q, want %q", int64(c.m), got, c.want)
		}
		back, err := ParseMilli(c.want)
		if err != nil || back != c.m {
			t.Errorf("ParseMilli(%q) = %v, %v", c.want, back, err)
		}
	}
	b, _ := json.Marshal(struct{ W Milli }{W: 250})
	if string(b) != `{"W":0.25}` {
		t.Errorf("json %s", b)
	}
	for _, bad := range []string{"", "-", ".5", "1.", "1.2345", "1e3", "0x10", "+1", "1.5.0", "12345678901234567"} {
		if _, err := ParseMilli(bad); err == nil {
			t.Errorf("ParseMilli(%q) accepted", bad)
		}
	}
}

func FuzzParseMilli(f *testing.F) {
	for _, s := range []string{"0", "0.5", "-1.25", "100", "1.2345", "abc", "-0.062"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMilli(s)
		if err != nil {
			return
		}
		// Whatever parses re-parses from its canonical text to the same value.
		back, err := ParseMilli(m.String())
		if err != nil || back != m {
			t.Fatalf("%q → %v → %q → %v, %v", s, m, m.String(), back, err)
		}
	})
}

func FuzzNormalizeDomain(f *testing.F) {
	for _, s := range []string{"Power BI / Performance", "  a\t b ", "ＰＯＷＥＲ", "İstanbul", "ΟΔΟΣ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := NormalizeDomain(s)
		first, _ := utf8.DecodeRuneInString(d)
		last, _ := utf8.DecodeLastRuneInString(d)
		if d != "" && (isSpace(first) || isSpace(last)) {
			t.Fatalf("%q normalises to %q with outer space", s, d)
		}
	})
}

func TestPositionVote(t *testing.T) {
	for _, tc := range []struct {
		base     Milli
		credible bool
	}{{CredibleWeight, true}, {CredibleWeight - 1, false}} {
		p := Position{Type: Contradict, BaseWeight: tc.base, EffectiveWeight: 250}
		if v := p.Vote(); v != (Vote{Type: Contradict, EffectiveWeight: 250, Credible: tc.credible}) {
			t.Errorf("base weight %v: vote %+v", tc.base, v)
		}
	}
}
