package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/issuing/issuingtest"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// BenchmarkTrustAtTheLimits measures the trust routes over HTTP on
// loopback for a subject at the collection limits (2,000 memories, 10,000
// records, 50 skills), against two baselines from the same run: an HTTP
// round trip that does nothing (/healthz), for the cached reads (the skills
// list, a skill's trust), and one assessment of the heaviest skill in the
// pure core (skilltrust.AssessSkills over the same collection), for the
// reads that assess: an evidence page assesses its skill on every request,
// and a trust read in a new context is a cache miss that assesses once.
// The skills list's first read, with the passport already cached, assesses
// the 50 listed skills. Run with
//
//	go test ./issuer/httpapi -run '^$' -bench TrustAtTheLimits -benchtime 20x
func BenchmarkTrustAtTheLimits(b *testing.B) {
	ctx := context.Background()
	pe := newPassportEnv(b, store.SQLite, withTrust(b))
	if _, err := pe.ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		b.Fatal(err)
	}
	a, err := storetest.Admin(pe.db).CreateAgent(ctx, service.NewAgent{Name: "Limit"})
	if err != nil {
		b.Fatal(err)
	}
	sub := issuingtest.LimitSubject(issueTime, evidence.MaxMemories, evidence.MaxReports)
	pe.subjects.set(a.ID, sub)
	client := pe.srv.Client()
	get := func(path string) []byte {
		res, err := client.Get(pe.srv.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("%s: %d %s", path, res.StatusCode, body)
		}
		return body
	}
	base := "/api/public/agents/" + string(a.ID)
	get(base + "/passport?disclose=none")
	start := time.Now()
	var list issuer.SkillList
	if err := json.Unmarshal(get(base+"/skills"), &list); err != nil {
		b.Fatal(err)
	}
	firstList := time.Since(start)
	heaviest := list.Skills[0]
	for _, s := range list.Skills {
		if s.SourceCount > heaviest.SourceCount {
			heaviest = s
		}
	}
	get(heaviest.Links.Trust)
	get(heaviest.Links.Evidence)
	c, err := issuing.Collect(sub, make([]byte, issuing.MinPseudonymKey), issueTime)
	if err != nil {
		b.Fatal(err)
	}
	day := calendar.Of(issueTime)

	// The operations alternate within each iteration, so that a change of
	// load on a shared machine weighs on all of them alike.
	ops := []func(i int){
		func(int) { get("/healthz") },
		func(int) {
			if _, err := skilltrust.AssessSkills(c.Set(), []skilltrust.Task{{Skill: heaviest.Skill}}, day); err != nil {
				b.Fatal(err)
			}
		},
		func(int) { get(base + "/skills") },
		func(int) { get(heaviest.Links.Trust) },
		func(int) { get(heaviest.Links.Evidence) },
		func(i int) { get(fmt.Sprintf("%s?workload=w%d", heaviest.Links.Trust, i)) },
	}
	spent := make([]time.Duration, len(ops))
	b.ResetTimer()
	for i := range b.N {
		for k, op := range ops {
			start := time.Now()
			op(i)
			spent[k] += time.Since(start)
		}
	}
	floor, assess, skills, trust, page, contexts := spent[0], spent[1], spent[2], spent[3], spent[4], spent[5]
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(float64(heaviest.SourceCount), "sources")
	b.ReportMetric(ms(floor), "floor-ms")
	b.ReportMetric(ms(assess), "assess-ms")
	b.ReportMetric(float64(skills)/float64(floor), "skills-x-floor")
	b.ReportMetric(float64(trust)/float64(floor), "trust-x-floor")
	b.ReportMetric(float64(page)/float64(assess), "evidence-x-assess")
	b.ReportMetric(float64(contexts)/float64(assess), "new-context-x-assess")
	b.ReportMetric(float64(firstList.Microseconds())/1000, "first-skills-ms")
	b.ReportMetric(float64(firstList)*float64(b.N)/float64(assess), "first-skills-x-assess")
}

// withTrust adds the trust API to a passport environment's server, its
// cursors sealed with a zero key.
func withTrust(tb testing.TB) func(*httpapi.Config, *service.Passports, *store.DB) {
	return func(cfg *httpapi.Config, p *service.Passports, db *store.DB) {
		sealer, err := seal.New(make([]byte, seal.KeySize))
		if err != nil {
			tb.Fatal(err)
		}
		trust, err := service.NewTrust(p, db, service.TrustOptions{Cursors: sealer})
		if err != nil {
			tb.Fatal(err)
		}
		cfg.Trust = trust
	}
}
