package statuslist

import (
	"bytes"
	"compress/zlib"
	"math/rand/v2"
	"testing"
	"time"
)

// revokedList returns a two-bit list of 2^20 entries in which passports
// hold the given number of entries, drawn at random as the issuer draws
// them, and one percent of those are revoked.
func revokedList(tb testing.TB, passports int) *List {
	l, err := New(2, 1<<20)
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(22, 1))
	for _, i := range r.Perm(1 << 20)[:passports/100] {
		if err := l.Set(i, Invalid); err != nil {
			tb.Fatal(err)
		}
	}
	return l
}

// BenchmarkSize reports the size of lst, and of the zlib stream it
// encodes, for 1% of the passports revoked at random: 1,000,000 passports
// in one list, and the 2^19 a list holds when the issuer opens the next.
func BenchmarkSize(b *testing.B) {
	for _, c := range []struct {
		name      string
		passports int
	}{{"1000000", 1_000_000}, {"half", 1 << 19}} {
		b.Run(c.name, func(b *testing.B) {
			l := revokedList(b, c.passports)
			var lst string
			for b.Loop() {
				var err error
				if lst, err = l.Encode(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(lst)), "lst-bytes")
			b.ReportMetric(float64(len(lst)*6/8), "zlib-bytes")
		})
	}
}

// BenchmarkGet reads one entry of a decoded list of 2^20 entries, and
// reports the ratio to reading a byte of a plain slice the same number of
// times in the same run.
func BenchmarkGet(b *testing.B) {
	lst, err := revokedList(b, 1_000_000).Encode()
	if err != nil {
		b.Fatal(err)
	}
	l, err := Decode(2, lst, MaxBytes)
	if err != nil {
		b.Fatal(err)
	}
	const mask = 1<<20 - 1
	var sink uint8
	i := 0
	for b.Loop() {
		v, err := l.Get(i & mask)
		if err != nil {
			b.Fatal(err)
		}
		sink ^= v
		i += 7919
	}
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	plain := make([]uint8, 1<<20)
	start := time.Now()
	for j := range b.N {
		sink ^= plain[(j*7919)&mask]
	}
	base := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportMetric(base, "slice-ns/op")
	b.ReportMetric(per/base, "x-slice")
	if sink == 0xff {
		b.Log(sink)
	}
}

// BenchmarkDecode parses the lst of the 1,000,000-passport list: the cost
// a verifier pays once per list it fetches.
func BenchmarkDecode(b *testing.B) {
	lst, err := revokedList(b, 1_000_000).Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(2, lst, MaxBytes); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegenerate revokes one more entry of the 1,000,000-passport
// list and encodes it again, and reports the ratio to compressing the
// same bytes with zlib at the default level in the same run.
func BenchmarkRegenerate(b *testing.B) {
	l := revokedList(b, 1_000_000)
	r := rand.New(rand.NewPCG(22, 2))
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Set(r.IntN(l.Len()), Invalid); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Encode(); err != nil {
			b.Fatal(err)
		}
	}
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	start := time.Now()
	for range b.N {
		var buf bytes.Buffer
		w := zlib.NewWriter(&buf)
		w.Write(l.b)
		w.Close()
	}
	base := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportMetric(per/1e6, "ms/regen")
	b.ReportMetric(base/1e6, "zlib-default-ms")
	b.ReportMetric(per/base, "x-zlib-default")
}
