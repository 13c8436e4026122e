package issuing_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/issuing/issuingtest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

func limitSubject(memories, records int) *issuing.Subject {
	return issuingtest.LimitSubject(issuedAt, memories, records)
}

// TestAtTheLimits: a subject exactly at the limits is collected whole and
// not truncated; all of its 50 skills get a skill passport; the previews
// bundle verifies; disclosing everything is refused with the size.
func TestAtTheLimits(t *testing.T) {
	sg, v := signer(t)
	s := limitSubject(evidence.MaxMemories, evidence.MaxReports)
	col := collect(t, s)
	if col.Truncated || len(col.Records) != evidence.MaxReports {
		t.Fatalf("%d records, truncated %v; want %d whole", len(col.Records), col.Truncated, evidence.MaxReports)
	}
	out := issue(t, s, testKey, sg, options(), issuing.DisclosePreviews)
	if n := len(out.Passport.SkillPassports); n != 50 {
		t.Fatalf("%d skill passports; want 50", n)
	}
	t.Logf("previews bundle %d bytes, evidence file %d bytes", len(out.Bundle), len(out.EvidenceFile))
	res := verify(t, v, out.Bundle)
	recompute(t, res, out.EvidenceFile)

	_, err := issuing.Issue(s, testKey, sg, options(), issuing.DiscloseAll)
	var tl *issuing.BundleTooLargeError
	if !errors.As(err, &tl) || issuer.ErrorCode(err) != issuer.CodeTooLarge {
		t.Fatalf("disclose=all: %v; want a BundleTooLargeError", err)
	}
	if tl.Size <= passport.MaxBundleSize || tl.Limit != passport.MaxBundleSize || !strings.Contains(issuer.ErrorMessage(err), fmt.Sprint(tl.Size)) {
		t.Errorf("too large: size %d limit %d message %q", tl.Size, tl.Limit, issuer.ErrorMessage(err))
	}
}

// TestTruncation: beyond the limits, the collection keeps adverse records
// first, marks itself truncated, and every skill passport says so.
func TestTruncation(t *testing.T) {
	sg, v := signer(t)
	s := limitSubject(2_400, 13_000)
	col := collect(t, s)
	if !col.Truncated || len(col.Records) != evidence.MaxReports {
		t.Fatalf("%d records, truncated %v", len(col.Records), col.Truncated)
	}
	mems := map[string]bool{}
	for _, r := range col.Records {
		if r.Lineage != nil {
			mems[r.Lineage.Memory] = true
		}
	}
	if len(mems) > evidence.MaxMemories {
		t.Errorf("%d memories kept", len(mems))
	}
	adverse, kept := 0, 0
	for _, e := range s.Events {
		if e.Kind == issuing.EventContradiction || e.Outcome == evidence.OutcomeFailure {
			adverse++
		}
	}
	for _, r := range col.Records {
		if r.Type == evidence.TypeContradiction || r.Outcome == evidence.OutcomeFailure {
			kept++
		}
	}
	if kept != adverse {
		t.Errorf("kept %d of %d adverse records", kept, adverse)
	}
	out := issue(t, s, testKey, sg, options(), issuing.DisclosePreviews)
	for _, sp := range out.Passport.SkillPassports {
		if !slices.Contains(sp.Limitations, string(skilltrust.LimitTruncated)) || sp.Estimate != nil {
			t.Errorf("skill %s does not show the truncation", sp.Skill)
		}
	}
	if !strings.Contains(string(out.EvidenceFile), `"evidenceTruncated":true`) {
		t.Error("the evidence file does not say it is truncated")
	}
	recompute(t, verify(t, v, out.Bundle), out.EvidenceFile)

	// The same subject collected twice keeps the same records.
	again := collect(t, s)
	if !slices.EqualFunc(col.Leaves, again.Leaves, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Error("truncation is not deterministic")
	}
}

// TestSkillChoice: with more than 50 skills, the passport lists 50: a
// skill with an unresolved contradiction first, however little else it
// has, and never one named only by the subject's own records before one
// with independent observations.
func TestSkillChoice(t *testing.T) {
	sg, _ := signer(t)
	s := &issuing.Subject{Key: 1, PublicID: "agt_many", Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
		Owners: []issuing.OwnerBinding{{Agent: 1, Operator: 1000, From: day(2000)}, {Agent: 2, Operator: 2000, From: day(2000)}}}
	addMemory := func(skill string) issuing.Key {
		k := issuing.Key(100 + len(s.Memories))
		s.Memories = append(s.Memories, issuing.Memory{Key: k, PublicID: issuer.MemoryID(fmt.Sprintf("mem_%026d", k)),
			Visibility: issuing.MemoryPublic, Status: issuer.MemoryActive, CreatedAt: day(100), AppliesTo: issuing.AppliesTo{Skill: skill}})
		return k
	}
	event := func(kind issuing.EventKind, m issuing.Key) {
		e := issuing.Event{Key: issuing.Key(10_000 + len(s.Events)), Kind: kind, Actor: 2, Memory: m, At: day(5)}
		if kind == issuing.EventOutcome {
			e.Outcome = evidence.OutcomeSuccess
		}
		s.Events = append(s.Events, e)
	}
	for i := range 60 { // observed skills
		m := addMemory(fmt.Sprintf("observed %02d", i))
		event(issuing.EventOutcome, m)
		event(issuing.EventOutcome, m)
	}
	for i := range 30 { // skills with many publications and nothing else
		for range 20 {
			addMemory(fmt.Sprintf("published %02d", i))
		}
	}
	event(issuing.EventContradiction, addMemory("contested"))
	out := issue(t, s, testKey, sg, options(), issuing.DisclosePreviews)
	var names []string
	for _, sp := range out.Passport.SkillPassports {
		names = append(names, sp.Skill)
	}
	if len(names) != 50 || !slices.IsSorted(names) || !slices.Contains(names, "contested") {
		t.Fatalf("skills %v", names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "published") {
			t.Errorf("%s listed before skills with independent observations", n)
		}
	}
	if names[1] != "observed 00" || names[49] != "observed 48" {
		t.Errorf("skills %v; want the contested one and observed 00 to 48", names)
	}
}

// cpuTime returns the process's user and system CPU time so far: on a
// shared machine it is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIssue issues a passport for a subject at the collection limits
// (2,000 memories, 10,000 records, 50 skills), and reports the share of
// each step: collection (the source adapter), assessment and assembly, and
// signing with the evidence file (wall-time shares), and the CPU time per
// passport, also as a ratio to the CPU time of one Ed25519 signature
// measured in the same run (x-ed25519): on a loaded machine the ratio moves
// less than either figure.
func BenchmarkIssue(b *testing.B) {
	sg, _ := signer(b)
	s := limitSubject(evidence.MaxMemories, evidence.MaxReports)
	opt := options()
	const sigRuns = 2000
	sig0 := cpuTime()
	for range sigRuns {
		if _, err := sg.SignCompact([]byte(`{"passport":{},"passportHash":"x"}`), passport.JWSType); err != nil {
			b.Fatal(err)
		}
	}
	sig := float64((cpuTime() - sig0).Nanoseconds()) / sigRuns
	var collectT, assembleT, signT time.Duration
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		t0 := time.Now()
		c, err := issuing.Collect(s, testKey, opt.IssuedAt)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		d, err := issuing.Assemble(s, c, opt)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if _, err := d.Sign(sg, issuing.DisclosePreviews); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		collectT, assembleT, signT = collectT+t1.Sub(t0), assembleT+t2.Sub(t1), signT+t3.Sub(t2)
	}
	cpu := float64((cpuTime() - cpu0).Nanoseconds()) / float64(b.N)
	b.ReportMetric(cpu, "cpu-ns/op")
	b.ReportMetric(cpu/sig, "x-ed25519")
	total := float64(collectT + assembleT + signT)
	b.ReportMetric(float64(collectT)/total, "collect-share")
	b.ReportMetric(float64(assembleT)/total, "assess-share")
	b.ReportMetric(float64(signT)/total, "sign-share")
}
