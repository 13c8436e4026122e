package ledger

import (
	"fmt"
	"strings"
	"testing"
)

// benchFile writes a ledger of n events over cps counterparties spread over
// two years before 2026-10-22, with amounts and notes on most lines.
func benchFile(n, cps int) []byte {
	var b strings.Builder
	b.WriteString("---\nreputation: 1\nowner: agent:buyer-7\nupdated: 2026-10-22\n---\n\n## Counterparties\n\n")
	kinds := []Kind{KindAgent, KindService, KindStore, KindFirm}
	for i := range cps {
		fmt.Fprintf(&b, "- cp-%03d.example · %s · parts, tools · supplier %d\n", i, kinds[i%4], i)
	}
	b.WriteString("\n## Events\n\n")
	end, _ := ParseDate("2026-10-22")
	seed := uint64(7)
	for i := range n {
		seed = seed*6364136223846793005 + 1442695040888963407
		r := seed >> 20
		d := end.AddDays(-int(r % 730))
		typ := EventTypes[(r>>10)%uint64(len(EventTypes))]
		if (r>>14)%3 != 0 {
			typ = Delivered // most dealings go well
		}
		fmt.Fprintf(&b, "- %s · cp-%03d.example · %s · %d · order %d\n", d, int((r>>16)%uint64(cps)), typ, 10+int(r%500), i)
	}
	b.WriteString("\n## Rules\n\n" + DefaultRules().Block(RuleKeys))
	return []byte(b.String())
}

// BenchmarkRank10k ranks 10,000 events over 200 counterparties. The
// baselines in the same run are parsing the same file, and ranking the
// straightforward way (one pass over all events per counterparty).
//
//	go test -run='^$' -bench=10k -benchmem ./ledger
func BenchmarkRank10k(b *testing.B) {
	src := benchFile(10_000, 200)
	f, err := Parse(src)
	if err != nil || len(f.Issues) != 0 || len(f.Events) != 10_000 {
		b.Fatalf("bench file: %v %v %d", err, f.Issues, len(f.Events))
	}
	asOf, _ := ParseDate("2026-10-22")
	b.Run("rank", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = f.Rank(asOf)
		}
	})
	b.Run("parse+rank", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			g, _ := Parse(src)
			_ = g.Rank(asOf)
		}
	})
	b.Run("baseline=parse", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			_, _ = Parse(src)
		}
	})
	b.Run("baseline=score-each", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range f.Counterparties {
				_ = f.Score(c.ID, asOf)
			}
		}
	})
}
