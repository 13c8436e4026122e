package calendar

import (
	"testing"
	"time"
)

// TestAgainstTime checks every day from year 0 to 9999 against package time.
func TestAgainstTime(t *testing.T) {
	start := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	epoch := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := Date{}
	for tm := start; tm.Year() < 10000; tm = tm.AddDate(0, 0, 1) {
		d := Of(tm)
		s := tm.Format("2006-01-02")
		if d.String() != s {
			t.Fatalf("%s: String %s", s, d)
		}
		if p, err := Parse(s); err != nil || p != d {
			t.Fatalf("Parse(%s) = %v, %v", s, p, err)
		}
		if got, want := d.Sub(Of(epoch)), int((tm.Unix()-epoch.Unix())/86400); got != want {
			t.Fatalf("%s: %d days from the epoch, want %d", s, got, want)
		}
		if !prev.IsZero() && (d.Sub(prev) != 1 || !prev.Before(d) || prev.AddDays(1) != d) {
			t.Fatalf("%s does not follow %s", s, prev)
		}
		prev = d
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "2026-2-01", "2026-02-30", "2025-02-29", "2026-13-01", "2026-00-10", "20260101", "2026-01-01T00:00:00Z", "+026-01-01", "２０２６-01-01"} {
		if _, err := Parse(s); err != ErrSyntax {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", s, err)
		}
	}
	if !(Date{}).IsZero() || (Date{}).String() != "" {
		t.Error("the zero Date")
	}
}
