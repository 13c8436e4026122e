package issuer_test

import (
	"testing"

	"github.com/remnant/passportkit/issuer"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, id := range []int64{1, 2, 255, 1 << 40, 1<<63 - 1} {
		c := issuer.CursorAfter(id)
		got, err := issuer.ParseCursor(c.String())
		if err != nil || got.ID() != id || len(c.String()) != 11 {
			t.Fatalf("%d: %q -> %v, %v", id, c.String(), got.ID(), err)
		}
	}
	if !issuer.CursorAfter(0).IsZero() || issuer.CursorAfter(0).String() != "" {
		t.Fatal("the zero cursor has a text form")
	}
}

// FuzzParseCursor: whatever parses names a positive position and re-encodes
// to the same text; everything else is an invalid-input error.
func FuzzParseCursor(f *testing.F) {
	f.Add(issuer.CursorAfter(1).String())
	f.Add(issuer.CursorAfter(1<<63 - 1).String())
	f.Add("AAAAAAAAAAA")
	f.Add("AAAAAAAAAAB")
	f.Add("gAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := issuer.ParseCursor(s)
		if err != nil {
			checkCallerError(t, err)
			return
		}
		if c.ID() <= 0 || c.String() != s {
			t.Fatalf("%q parsed to %d, re-encoded %q", s, c.ID(), c.String())
		}
	})
}
