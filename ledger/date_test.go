package ledger

import (
	"errors"
	"testing"
	"time"
)

// TestDateAgainstTime walks every day from 0000-01-01 to 9999-12-31 and
// compares parsing, printing and day arithmetic with package time.
func TestDateAgainstTime(t *testing.T) {
	start := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	first := DateOf(start)
	if first.IsZero() {
		t.Fatal("0000-01-01 is the zero Date")
	}
	i := 0
	for tm := start; tm.Year() < 10000; tm = tm.AddDate(0, 0, 1) {
		s := tm.Format(time.DateOnly)
		d, err := ParseDate(s)
		if err != nil {
			t.Fatalf("ParseDate(%q): %v", s, err)
		}
		if got := d.String(); got != s {
			t.Fatalf("ParseDate(%q).String() = %q", s, got)
		}
		if got := d.Sub(first); got != i {
			t.Fatalf("%s is %d days after 0000-01-01, want %d", s, got, i)
		}
		if got := first.AddDays(i); got != d {
			t.Fatalf("AddDays(%d) = %s, want %s", i, got, s)
		}
		i++
	}
}

func TestParseDateRefuses(t *testing.T) {
	for _, s := range []string{
		"", "2026-1-01", "2026-01-1", "26-01-01", "2026/01/01", "2026-00-10", "2026-13-01",
		"2026-01-00", "2026-01-32", "2026-02-29", "2100-02-29", "2026-04-31", "2026-01-01T00:00",
		" 2026-01-01", "2026-01-01 ", "+026-01-01", "2026-0a-01", "２０２６-01-01",
	} {
		if d, err := ParseDate(s); !errors.Is(err, ErrBadDate) {
			t.Errorf("ParseDate(%q) = %v, %v; want ErrBadDate", s, d, err)
		}
	}
	for _, s := range []string{"2024-02-29", "2000-02-29", "2026-12-31", "0000-01-01", "9999-12-31"} {
		if _, err := ParseDate(s); err != nil {
			t.Errorf("ParseDate(%q): %v", s, err)
		}
	}
}

func TestDateZero(t *testing.T) {
	var d Date
	if !d.IsZero() || d.String() != "" {
		t.Fatalf("zero Date: IsZero %v, String %q", d.IsZero(), d.String())
	}
	b, _ := d.MarshalText()
	if len(b) != 0 {
		t.Fatalf("zero Date marshals to %q", b)
	}
	var e Date
	if err := e.UnmarshalText([]byte("2026-10-22")); err != nil || e.String() != "2026-10-22" {
		t.Fatalf("UnmarshalText: %v, %s", err, e)
	}
	if err := e.UnmarshalText([]byte("2026-10-32")); err == nil {
		t.Fatal("UnmarshalText accepted 2026-10-32")
	}
}
