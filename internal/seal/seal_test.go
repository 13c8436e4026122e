package seal

import (
	"bytes"
	"encoding/base64"
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
		"a line break":   {"agents", tok[:5] + "\n" + tok[5:]},
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

func TestHidden(t *testing.T) {
	s := testSealer(t, 1)
	secret := []byte("row 1234567")
	for _, p := range [][]byte{nil, secret, bytes.Repeat([]byte{0xff}, MaxPayload)} {
		tok := s.SealHidden("journal", p)
		if got, err := s.OpenHidden("journal", tok); err != nil || !bytes.Equal(got, p) {
			t.Fatalf("OpenHidden(SealHidden(%x)) = %x, %v", p, got, err)
		}
		if s.SealHidden("journal", p) != tok {
			t.Fatalf("%x sealed twice gives two tokens", p)
		}
	}
	tok := s.SealHidden("journal", secret)
	b, _ := base64.RawURLEncoding.DecodeString(tok)
	if bytes.Contains(b, secret) || bytes.Contains([]byte(tok), secret) {
		t.Fatalf("the payload shows in %q", tok)
	}
	flipped := []byte(tok)
	flipped[len(flipped)-3] ^= 1
	for name, c := range map[string]struct{ purpose, token string }{
		"other purpose":   {"evidence", tok},
		"altered payload": {"journal", string(flipped)},
		"truncated":       {"journal", tok[:len(tok)-1]},
		"extended":        {"journal", tok + "A"},
		"empty":           {"journal", ""},
		"other key":       {"journal", testSealer(t, 2).SealHidden("journal", secret)},
		"a plain token":   {"journal", s.Seal("journal", secret)},
	} {
		if _, err := s.OpenHidden(c.purpose, c.token); err != ErrInvalid {
			t.Errorf("%s: OpenHidden = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := s.Open("journal", tok); err != ErrInvalid {
		t.Errorf("a hidden token opened as a plain one: %v", err)
	}
}

// FuzzOpenHidden: whatever opens is the very token its payload seals to.
func FuzzOpenHidden(f *testing.F) {
	s := testSealer(f, 1)
	f.Add(s.SealHidden("p", []byte("payload")))
	f.Add(s.SealHidden("p", nil))
	f.Add("")
	f.Add("AAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, token string) {
		p, err := s.OpenHidden("p", token)
		if err != nil {
			return
		}
		if s.SealHidden("p", p) != token {
			t.Fatalf("accepted %q, which is not the token of its payload", token)
		}
	})
}
