package mcpwire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BenchmarkDecode measures Decode against the SDK's own lenient decoder on
// the same frames, measured in the same run: a small tools/call and one
// carrying a 4 MiB ledger file, the largest argument a ledger tool takes.
// Compare ns/op of each mcpwire line with its sdk line for the ratio.
func BenchmarkDecode(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat("- 2026-06-30 · shop.example · delivered · 120 · \"order 441\"\n", 4<<20/64))
	frames := map[string][]byte{
		"small": []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"score_counterparty","arguments":{"counterparty":"shop.example","amount":150}}}`),
		"4MiB":  []byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"parse_reputation","arguments":{"text":` + string(text) + `}}}`),
	}
	for name, frame := range frames {
		b.Run(name+"/mcpwire", func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/sdk", func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonrpc.DecodeMessage(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
