package mcpserver

import (
	"log/slog"
	"testing"
)

// BenchmarkServerPerRequest measures the server each /mcp request gets, so
// that its log lines carry the request's identifier: a new mcp.Server with
// the tools its message needs.
func BenchmarkServerPerRequest(b *testing.B) {
	t := newTools(nil, slog.New(slog.DiscardHandler), "bench", config{
		passports: nopPassports{}, trust: nopTrust{}, trustAPI: nopTrustAPI{}, discovery: nopFinder{}})
	for _, c := range []struct {
		name string
		need needed
	}{{"tools/list", needed{all: true}}, {"tools/call", needed{tool: "get_skill_trust"}}, {"initialize", needed{}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t.server(t.log.With("request_id", "bench"), c.need)
			}
		})
	}
}

// Stand-ins that configure every tool; the benchmark calls none of them.
type (
	nopPassports struct{ PassportIssuer }
	nopTrust     struct{ TrustPublisher }
	nopTrustAPI  struct{ TrustReader }
	nopFinder    struct{ AgentFinder }
)
