package issuing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/remnant/passportkit/evidence"
)

// referenceLimits is the collection's limit check as first written: a set
// of the record's new nodes built per record. limits.fits must decide as
// it does.
type referenceLimits struct {
	records, links, bytes int
	memories, nodes       map[string]bool
}

func (l *referenceLimits) fits(r *evidence.Record, leaf []byte) bool {
	if l.records+1 > evidence.MaxReports || l.bytes+len(leaf)+1 > evidence.MaxFileSize-fileOverhead {
		return false
	}
	var newMem string
	var newNodes []string
	links := 0
	if lin := r.Lineage; lin != nil {
		if lin.Memory != "" && !l.memories[lin.Memory] {
			newMem = lin.Memory
		}
		for _, v := range append([]string{lin.Memory, lin.VersionRoot, lin.ContentHash}, slices.Concat(lin.DerivedFrom, lin.Extends, lin.Supersedes)...) {
			if v != "" && !l.nodes[v] && !slices.Contains(newNodes, v) {
				newNodes = append(newNodes, v)
			}
		}
		links = len(lin.DerivedFrom) + len(lin.Extends) + len(lin.Supersedes)
	}
	if newMem != "" && len(l.memories)+1 > evidence.MaxMemories ||
		len(l.nodes)+len(newNodes) > evidence.MaxLineageNodes || l.links+links > evidence.MaxLinks {
		return false
	}
	l.records++
	l.bytes += len(leaf) + 1
	l.links += links
	if newMem != "" {
		l.memories[newMem] = true
	}
	for _, v := range newNodes {
		l.nodes[v] = true
	}
	return true
}

// TestFitsReference: over random records whose lineages share memories,
// roots, hashes and links (repeated within a record too), enough of them
// to reach the lineage limits, limits.fits decides every record as the
// reference does and ends with the same counts.
func TestFitsReference(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 99))
		pool := func(prefix string, n int) string {
			if r.IntN(4) == 0 {
				return ""
			}
			return fmt.Sprintf("%s%d", prefix, r.IntN(n))
		}
		links := func() []string {
			if seed >= 2 {
				return nil // so that the memory limit is reached first
			}
			var out []string
			for range r.IntN(4) {
				out = append(out, pool("mem_l", 6_000))
			}
			return slices.DeleteFunc(out, func(s string) bool { return s == "" })
		}
		got := &limits{memories: map[string]bool{}, nodes: map[string]bool{}}
		want := &referenceLimits{memories: map[string]bool{}, nodes: map[string]bool{}}
		kept := 0
		for i := range 14_000 {
			rec := evidence.Record{ID: fmt.Sprint("ev_", i)}
			if r.IntN(5) > 0 {
				rec.Lineage = &evidence.Lineage{Memory: pool("mem_m", 2_600), VersionRoot: pool("mem_m", 2_600),
					ContentHash: pool("sha256:", 3_000), DerivedFrom: links(), Extends: links(), Supersedes: links()}
			}
			leaf := make([]byte, 20+r.IntN(300))
			g, w := got.fits(&rec, leaf), want.fits(&rec, leaf)
			if g != w {
				t.Fatalf("seed %d record %d: fits %v; the reference %v", seed, i, g, w)
			}
			if g {
				kept++
			}
		}
		if got.records != want.records || got.links != want.links || got.bytes != want.bytes ||
			len(got.memories) != len(want.memories) || len(got.nodes) != len(want.nodes) {
			t.Fatalf("seed %d: counts %d %d %d %d %d; the reference's %d %d %d %d %d", seed,
				got.records, got.links, got.bytes, len(got.memories), len(got.nodes),
				want.records, want.links, want.bytes, len(want.memories), len(want.nodes))
		}
		if seed < 2 && kept >= evidence.MaxReports || seed >= 2 && len(got.memories) != evidence.MaxMemories {
			t.Fatalf("seed %d: %d records and %d memories kept; the test reaches no lineage limit", seed, kept, len(got.memories))
		}
	}
}
