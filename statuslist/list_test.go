package statuslist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// draftCase is one example of the Token Status List draft (its section 4
// and appendix C), transcribed in testdata/draft.json.
type draftCase struct {
	Name    string   `json:"name"`
	Bits    int      `json:"bits"`
	Size    int      `json:"size"`
	Lst     string   `json:"lst"`
	Bytes   string   `json:"bytes"`   // the uncompressed array, when the draft prints it
	Entries [][2]int `json:"entries"` // index, value; every other entry is 0
}

func draftCases(t testing.TB) []draftCase {
	b, err := os.ReadFile("testdata/draft.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Cases []draftCase }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cases
}

// TestDraftExamples decodes the draft's examples for 1, 2, 4 and 8 bits to
// the statuses it documents, and builds the same arrays from those
// statuses. Go's DEFLATE writes other bytes than the zlib the draft used,
// so our lst differs from the draft's; both decode to the same array.
func TestDraftExamples(t *testing.T) {
	for _, c := range draftCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Decode(c.Bits, c.Lst, MaxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if got.Len() != c.Size || got.Bits() != c.Bits {
				t.Fatalf("got %d entries of %d bits, want %d of %d", got.Len(), got.Bits(), c.Size, c.Bits)
			}
			if c.Bytes != "" && hex.EncodeToString(got.b) != c.Bytes {
				t.Errorf("array %x, want %s", got.b, c.Bytes)
			}
			want, err := New(c.Bits, c.Size)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range c.Entries {
				if v, err := got.Get(e[0]); err != nil || int(v) != e[1] {
					t.Errorf("status[%d] = %d, %v; want %d", e[0], v, err, e[1])
				}
				if err := want.Set(e[0], uint8(e[1])); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got.b, want.b) {
				t.Fatal("the draft's array holds statuses other than those it lists")
			}
			lst, err := want.Encode()
			if err != nil {
				t.Fatal(err)
			}
			again, err := Decode(c.Bits, lst, MaxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.b, got.b) {
				t.Error("our lst decodes to another array than the draft's")
			}
			t.Logf("lst: draft %d characters, ours %d, identical %v", len(c.Lst), len(lst), lst == c.Lst)
		})
	}
}

// TestLayout pins where each entry lives: byte i·bits/8, from the least
// significant bit up.
func TestLayout(t *testing.T) {
	for _, c := range []struct {
		bits, size, idx int
		v               uint8
		want            string
	}{
		{1, 16, 0, 1, "0100"},
		{1, 16, 7, 1, "8000"},
		{1, 16, 9, 1, "0002"},
		{2, 8, 1, 2, "0800"},
		{2, 8, 5, 3, "000c"},
		{4, 4, 1, 0xa, "a000"},
		{4, 4, 2, 0xf, "000f"},
		{8, 2, 1, 0xff, "00ff"},
	} {
		l, err := New(c.bits, c.size)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Set(c.idx, c.v); err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(l.b); got != c.want {
			t.Errorf("bits %d: status[%d] = %d gives %s, want %s", c.bits, c.idx, c.v, got, c.want)
		}
		if v, _ := l.Get(c.idx); v != c.v {
			t.Errorf("bits %d: Get(%d) = %d, want %d", c.bits, c.idx, v, c.v)
		}
		if err := l.Set(c.idx, 0); err != nil || hex.EncodeToString(l.b) != "0000"[:2*len(l.b)] {
			t.Errorf("bits %d: clearing status[%d] leaves %x", c.bits, c.idx, l.b)
		}
	}
}

func TestListRefusals(t *testing.T) {
	for _, bits := range []int{-1, 0, 3, 5, 16} {
		if _, err := New(bits, 8); !errors.Is(err, ErrBits) {
			t.Errorf("New(%d, 8): %v, want ErrBits", bits, err)
		}
	}
	for _, size := range []int{-1, 0, MaxBytes*4 + 1} {
		if _, err := New(2, size); !errors.Is(err, ErrSize) {
			t.Errorf("New(2, %d): %v, want ErrSize", size, err)
		}
	}
	l, err := New(2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 12 {
		t.Errorf("Len %d, want 12 (10 entries rounded up to 3 bytes)", l.Len())
	}
	for _, i := range []int{-1, 12} {
		if _, err := l.Get(i); !errors.Is(err, ErrIndex) {
			t.Errorf("Get(%d): %v, want ErrIndex", i, err)
		}
		if err := l.Set(i, Valid); !errors.Is(err, ErrIndex) {
			t.Errorf("Set(%d): %v, want ErrIndex", i, err)
		}
	}
	if err := l.Set(0, 4); !errors.Is(err, ErrValue) {
		t.Errorf("Set(0, 4) in 2 bits: %v, want ErrValue", err)
	}
}

// zlibOf returns raw compressed with zlib at the default level.
func zlibOf(raw []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(raw)
	w.Close()
	return buf.Bytes()
}

func b64s(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestDecodeRefusals(t *testing.T) {
	const draft = "eNrbuRgAAhcBXQ" // section 4.1: 0xb9 0xa3, 1 bit
	lst8 := draftCases(t)[5].Lst   // appendix C.4, which has both - and _
	if _, err := Decode(8, lst8, MaxBytes); err != nil || !strings.ContainsAny(lst8, "-") || !strings.ContainsAny(lst8, "_") {
		t.Fatalf("the C.4 example: %v", err)
	}
	z, _ := base64.RawURLEncoding.DecodeString(draft)
	flipped := bytes.Clone(z)
	flipped[len(flipped)-1] ^= 1
	var dict bytes.Buffer
	w, _ := zlib.NewWriterLevelDict(&dict, zlib.BestCompression, []byte("dictionary"))
	w.Write([]byte{1, 2, 3})
	w.Close()
	for _, c := range []struct {
		name     string
		bits     int
		lst      string
		maxBytes int
		want     error
	}{
		{"bits 3", 3, draft, MaxBytes, ErrBits},
		{"bits 0", 0, draft, MaxBytes, ErrBits},
		{"padding", 1, draft + "==", MaxBytes, ErrMalformed},
		{"standard alphabet", 8, strings.NewReplacer("-", "+", "_", "/").Replace(lst8), MaxBytes, ErrMalformed},
		{"a line break", 1, draft[:7] + "\n" + draft[7:], MaxBytes, ErrMalformed},
		{"a carriage return", 1, draft[:7] + "\r" + draft[7:], MaxBytes, ErrMalformed},
		{"a space", 1, draft[:7] + " " + draft[7:], MaxBytes, ErrMalformed},
		{"non-zero trailing bits", 1, draft[:len(draft)-1] + "R", MaxBytes, ErrMalformed},
		{"a length of 4n+1", 1, draft + "A", MaxBytes, ErrMalformed},
		{"empty", 1, "", MaxBytes, ErrMalformed},
		{"truncated stream", 1, b64s(z[:len(z)-1]), MaxBytes, ErrMalformed},
		{"wrong checksum", 1, b64s(flipped), MaxBytes, ErrMalformed},
		{"a byte after the stream", 1, b64s(append(bytes.Clone(z), 0)), MaxBytes, ErrMalformed},
		{"two streams", 1, b64s(append(bytes.Clone(z), z...)), MaxBytes, ErrMalformed},
		{"raw deflate", 1, b64s(z[2 : len(z)-4]), MaxBytes, ErrMalformed},
		{"a preset dictionary", 1, b64s(dict.Bytes()), MaxBytes, ErrMalformed},
		{"an empty array", 1, b64s(zlibOf(nil)), MaxBytes, ErrMalformed},
		{"one byte over the bound", 1, draft, 1, ErrTooLarge},
		{"no room at all", 1, draft, 0, ErrTooLarge},
		{"a negative bound", 1, draft, -1, ErrTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Decode(c.bits, c.lst, c.maxBytes); !errors.Is(err, c.want) {
				t.Errorf("Decode: %v, want %v", err, c.want)
			}
		})
	}
	if l, err := Decode(1, draft, 2); err != nil || l.Len() != 16 {
		t.Errorf("an array of exactly maxBytes: %v", err)
	}
}

// TestDecodeBound refuses, without inflating it whole, a list one byte
// over MaxBytes that compresses to almost nothing.
func TestDecodeBound(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 16 MiB")
	}
	lst := b64s(zlibOf(make([]byte, MaxBytes+1)))
	if _, err := Decode(2, lst, MaxBytes); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Decode: %v, want ErrTooLarge", err)
	}
	t.Logf("%d bytes of zeros as lst: %d characters", MaxBytes+1, len(lst))
}

func TestEncodeDeterministic(t *testing.T) {
	l, _ := New(2, 12)
	for i, v := range []uint8{1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3} {
		l.Set(i, v)
	}
	a, _ := l.Encode()
	b, _ := l.Encode()
	if a != b {
		t.Fatalf("two encodings differ: %s, %s", a, b)
	}
}
