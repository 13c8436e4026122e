package seal

import (
	"bytes"
	"strings"
	"testing"
)

func testSealer(t testing.TB, fill byte) *Sealer {
	s, err := New(bytes.Repeat([]byte{fill}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	s := testSealer(t, 1)
	for _, p := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte{0xff}, MaxPayload)} {
		tok := s.Seal("agents", p)
		got, err := s.Open("agents", tok)
		if err != nil || !bytes.Equal(got, p) {
			t.Fatalf("Open(Seal(%x)) = %x, %v", p, got, err)
		}
	}
}

func TestRefusals(t *testing.T) {
	s := testSealer(t, 1)
	tok := s.Seal("agents", []byte("level=2;id=agt_x"))
	flipped := []byte(tok)
	flipped[3] ^= 1
	for name, c := range map[string]struct{ purpose, token string }{
		"other purpose":  {"evidence", tok},
		"altered":        {"agents", string(flipped)},
		"truncated":      {"agents", tok[:len(tok)-1]},
		"extended":       {"agents", tok + "A"},
		"padded":         {"agents", tok + "="},
		"standard alpha": {"agents", strings.ReplaceAll(strings.ReplaceAll(tok, "-", "+"), "_", "/") + "+"},
		"empty":          {"agents", ""},
		"too long":       {"agents", strings.Repeat("A", 2000)},
		"other key":      {"agents", testSealer(t, 2).Seal("agents", []byte("level=2;id=agt_x"))},
	} {
		if _, err := s.Open(c.purpose, c.token); err != ErrInvalid {
			t.Errorf("%s: Open = %v, want ErrInvalid", name, err)
		}
	}
}

func TestShortKey(t *testing.T) {
	if _, err := New(make([]byte, KeySize-1)); err == nil {
		t.Fatal("a short key was accepted")
	}
}

func FuzzOpen(f *testing.F) {
	s := testSealer(f, 1)
	f.Add(s.Seal("p", []byte("payload")))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, token string) {
		p, err := s.Open("p", token)
		if err != nil {
			return
		}
		if s.Seal("p", p) != token {
			t.Fatalf("accepted %q, which is not the token of its payload", token)
		}
	})
}
