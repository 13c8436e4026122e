package web_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer/store"
)

// BenchmarkProfilePage measures the profile page of the demo world's main
// agent against its baseline measured in the same run, interleaved: the
// signed passport the API serves for the same agent (both from the cached
// issuance of the hour). It reports each one's mean time and the ratio.
func BenchmarkProfilePage(b *testing.B) {
	s := newSite(b, store.SQLite)
	fetch := func(path string) time.Duration {
		start := time.Now()
		res, err := http.Get(s.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("%s: %d", path, res.StatusCode)
		}
		return time.Since(start)
	}
	profile, bundle := "/agents/"+string(s.main), "/api/public/agents/"+string(s.main)+"/passport"
	fetch(profile) // issue, recompute and cache once
	var page, base time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		page += fetch(profile)
		base += fetch(bundle)
	}
	b.ReportMetric(float64(page.Microseconds())/float64(b.N), "profile-µs/op")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N), "passport-µs/op")
	b.ReportMetric(float64(page)/float64(base), "ratio")
}
