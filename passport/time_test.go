package passport

import (
	"testing"
	"time"
)

// FuzzParseTime checks ParseTime against time.Parse with TimeLayout: the
// same verdict on every input, the same instant when both accept, and the
// text back from Time.String.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-29T18:00:00Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z", "0000-01-01T00:00:00Z",
		"2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z",
		"2026-01-01 00:00:00Z", "2026-01-01T00:00:00+", "2026-1-01T00:00:00Z", "+026-01-01T00:00:00Z", "2026-01-01T0:00:00.5Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTime(s)
		want, werr := time.Parse(TimeLayout, s)
		if len(s) != len(TimeLayout) {
			werr = errBadLength
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("ParseTime(%q): %v; time.Parse: %v", s, err, werr)
		}
		if err != nil {
			return
		}
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("ParseTime(%q) = %v, time.Parse %v", s, got.Time, want)
		}
		if got.String() != s {
			t.Fatalf("ParseTime(%q).String() = %q", s, got.String())
		}
	})
}

var errBadLength = &Error{Reason: ReasonFieldInvalid, Detail: "not 20 characters"}
