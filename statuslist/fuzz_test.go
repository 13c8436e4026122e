package statuslist

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecode checks that Decode never panics nor inflates past its bound,
// refuses only with its errors, and that whatever it reads encodes again
// to a list that decodes to the same array.
func FuzzDecode(f *testing.F) {
	for _, c := range draftCases(f)[:4] {
		f.Add(c.Bits, c.Lst)
	}
	f.Add(2, b64s(zlibOf(make([]byte, 1<<17))))
	f.Add(3, "eNrbuRgAAhcBXQ")
	f.Fuzz(func(t *testing.T, bits int, lst string) {
		const bound = 1 << 16
		l, err := Decode(bits, lst, bound)
		if err != nil {
			if !errors.Is(err, ErrBits) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if len(l.b) == 0 || len(l.b) > bound || l.Bits() != bits {
			t.Fatalf("%d bytes of %d bits", len(l.b), l.Bits())
		}
		again, err := l.Encode()
		if err != nil {
			t.Fatal(err)
		}
		l2, err := Decode(bits, again, bound)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(l.b, l2.b) {
			t.Fatal("the array changed through Encode and Decode")
		}
	})
}

// FuzzParsePayload checks that ParsePayload never panics, refuses only
// with a *PayloadError, and that whatever it reads marshals back to the
// same bytes: the payload has one form.
func FuzzParsePayload(f *testing.F) {
	f.Add([]byte(draftPayload))
	f.Add([]byte(`{"exp":2,"iat":1,"iss":"i","status_list":{"bits":2,"lst":"eNo76fITAAPfAgc"},"sub":"s","ttl":1}`))
	f.Add([]byte(`{"exp":2,"iat":1,"iss":"\u00e9\n","status_list":{"bits":8,"lst":"x"},"sub":"s","ttl":9007199254740991}`))
	f.Add([]byte(`{"exp":1,"exp":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePayload(b)
		if err != nil {
			var pe *PayloadError
			if !errors.As(err, &pe) {
				t.Fatalf("not a *PayloadError: %v", err)
			}
			return
		}
		out, err := MarshalPayload(*p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("read %q, marshalled %q", b, out)
		}
	})
}
