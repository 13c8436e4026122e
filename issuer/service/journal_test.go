package service

import (
	"bytes"
	"math"
	"testing"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
)

func journalSealer(t testing.TB) *seal.Sealer {
	sl, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return sl
}

// TestJournalCursorBinding: a cursor opens to its position for its own
// journal, domain and viewer only.
func TestJournalCursorBinding(t *testing.T) {
	sl := journalSealer(t)
	const viewer, agent, other = issuer.AgentID("agt_viewer"), issuer.AgentID("agt_agent"), issuer.AgentID("agt_other")
	bind := journalBinding(viewer, agent, "sql")
	for _, key := range []int64{1, 2, 1 << 40, math.MaxInt64} {
		tok := sealJournalCursor(sl, bind, key)
		if got, err := openJournalCursor(sl, bind, tok); err != nil || got != key {
			t.Fatalf("%d: opened %d, %v", key, got, err)
		}
		for name, b := range map[string][journalBindingSize]byte{
			"another viewer":  journalBinding(other, agent, "sql"),
			"another journal": journalBinding(viewer, other, "sql"),
			"another domain":  journalBinding(viewer, agent, ""),
			// The parts are length-prefixed: moving a byte across them
			// names another listing.
			"shifted parts": journalBinding(viewer+"a", "gt_agent", "sql"),
		} {
			if _, err := openJournalCursor(sl, b, tok); issuer.ErrorCode(err) != issuer.CodeCursorInvalid {
				t.Errorf("%d, %s: %v", key, name, err)
			}
		}
	}
	for _, key := range []int64{0, -1} {
		if _, err := openJournalCursor(sl, bind, sealJournalCursor(sl, bind, key)); issuer.ErrorCode(err) != issuer.CodeCursorInvalid {
			t.Errorf("the position %d was opened: %v", key, err)
		}
	}
}

// FuzzOpenJournalCursor: opening never panics; whatever opens names a
// positive position and is the very cursor the service seals for it (the
// token is canonical); every refusal is cursor_invalid.
func FuzzOpenJournalCursor(f *testing.F) {
	sl := journalSealer(f)
	bind := journalBinding("agt_viewer", "agt_agent", "")
	for _, key := range []int64{1, 255, math.MaxInt64} {
		f.Add(sealJournalCursor(sl, bind, key))
	}
	f.Add(sealJournalCursor(sl, journalBinding("agt_viewer", "agt_agent", "sql"), 1))
	f.Add(sl.SealHidden(JournalPurpose, []byte{journalVersion}))
	f.Add("AAAAAAAAAAE")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		key, err := openJournalCursor(sl, bind, token)
		if err != nil {
			if issuer.ErrorCode(err) != issuer.CodeCursorInvalid {
				t.Fatalf("%q: refused with %v", token, err)
			}
			return
		}
		if key <= 0 || sealJournalCursor(sl, bind, key) != token {
			t.Fatalf("%q opened to %d, which seals to %q", token, key, sealJournalCursor(sl, bind, key))
		}
	})
}
