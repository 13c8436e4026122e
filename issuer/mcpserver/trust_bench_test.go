package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/store"
)

// BenchmarkTrustToolsAgainstRoutes measures each trust read as a tool call
// through the SDK's client against the same read from its route, over the
// demo world on SQLite: reads alternate within each iteration, so that a
// change of load on a shared machine weighs on both alike. It reports, per
// read, the tool's time as a multiple of the route's, and the route's time;
// the floor is an MCP ping against GET /healthz, what each transport costs
// around a read.
func BenchmarkTrustToolsAgainstRoutes(b *testing.B) {
	tw := newTrustWorld(b, store.SQLite)
	main := tw.w.AgentID(tw.w.Main())
	ring := tw.w.AgentID(tw.w.OfRole(demoworld.RoleRing)[0])
	skill := demoworld.SkillEstimated
	assess := args("agents", []any{main, ring}, "skills", []string{skill, demoworld.SkillContested}, "context", map[string]string{"workload": "oltp"})
	reads := []struct{ name, tool, args, method, path, body string }{
		{"floor", "", "", "GET", "/healthz", ""},
		{"skills", "get_agent_skills", args("publicId", main), "GET", "/api/public/agents/" + string(main) + "/skills", ""},
		{"trust", "get_skill_trust", args("publicId", main, "skill", skill), "GET", trustPath(main, skill, "trust", ""), ""},
		{"evidence", "get_skill_evidence", args("publicId", main, "skill", skill, "limit", 10), "GET", trustPath(main, skill, "evidence", "limit=10"), ""},
		{"assess", "assess_trust", assess, "POST", "/api/public/trust/assess", assess},
	}
	client := tw.srv.Client()
	route := func(method, path, body string) {
		req, _ := http.NewRequest(method, tw.srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("%s %s: %d", method, path, res.StatusCode)
		}
	}
	tool := func(name, in string) {
		if name == "" {
			if err := tw.cs.Ping(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
			return
		}
		res, err := tw.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(in)})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res)
		}
	}
	for _, r := range reads { // the hour's passport and skill passports, cached
		route(r.method, r.path, r.body)
		tool(r.tool, r.args)
	}
	spent := make([][2]time.Duration, len(reads))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for k, r := range reads {
			start := time.Now()
			tool(r.tool, r.args)
			mid := time.Now()
			route(r.method, r.path, r.body)
			spent[k][0] += mid.Sub(start)
			spent[k][1] += time.Since(mid)
		}
	}
	b.StopTimer()
	for k, r := range reads {
		b.ReportMetric(float64(spent[k][0])/float64(spent[k][1]), r.name+"-tool-x-route")
		b.ReportMetric(float64(spent[k][1].Microseconds())/1000/float64(b.N), r.name+"-route-ms")
	}
}
