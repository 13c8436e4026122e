package cjson

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

func code(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestParseStrict(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Code // 0: accepted
	}{
		{"object", `{"a":1,"b":[true,false,null],"c":"x"}`, 0},
		{"whitespace", " { \"a\" : [ 1 , 2 ] } \n", 0},
		{"scalar", `"just a string"`, 0},
		{"empty", ``, CodeSyntax},
		{"only whitespace", `   `, CodeSyntax},
		{"missing value", `{"a":}`, CodeSyntax},
		{"trailing comma", `[1,2,]`, CodeSyntax},
		{"single quotes", `{'a':1}`, CodeSyntax},
		{"leading zero", `[01]`, CodeSyntax},
		{"bare minus", `[-]`, CodeSyntax},
		{"dot without digits", `[1.]`, CodeSyntax},
		{"exponent without digits", `[1e]`, CodeSyntax},
		{"plus sign", `[+1]`, CodeSyntax},
		{"NaN", `[NaN]`, CodeSyntax},
		{"control character", "[\"a\x01b\"]", CodeSyntax},
		{"bad escape", `["\x"]`, CodeSyntax},
		{"short unicode escape", `["\u12"]`, CodeSyntax},
		{"unterminated string", `["abc`, CodeSyntax},
		{"unterminated object", `{"a":1`, CodeSyntax},
		{"bad literal", `[tru]`, CodeSyntax},
		{"BOM", "\xef\xbb\xbf{}", CodeSyntax},
		{"duplicate key", `{"a":1,"a":2}`, CodeDuplicateKey},
		{"duplicate key by escape", `{"a":1,"\u0061":2}`, CodeDuplicateKey},
		{"duplicate key nested", `{"x":{"b":1,"c":2,"b":3}}`, CodeDuplicateKey},
		{"duplicate key in a large object", largeObject(40, true), CodeDuplicateKey},
		{"large object", largeObject(40, false), 0},
		{"same key in sibling objects", `[{"a":1},{"a":2}]`, 0},
		{"invalid UTF-8", "[\"\xff\"]", CodeInvalidUTF8},
		{"truncated UTF-8", "[\"\xe2\x82\"]", CodeInvalidUTF8},
		{"overlong UTF-8", "[\"\xc0\xaf\"]", CodeInvalidUTF8},
		{"UTF-8 encoded surrogate", "[\"\xed\xa0\x80\"]", CodeInvalidUTF8},
		{"lone high surrogate", `["\ud83d"]`, CodeLoneSurrogate},
		{"lone low surrogate", `["\ude02"]`, CodeLoneSurrogate},
		{"reversed pair", `["\ude02\ud83d"]`, CodeLoneSurrogate},
		{"high then non-surrogate", `["\ud83d\u0041"]`, CodeLoneSurrogate},
		{"surrogate pair", `["\ud83d\ude02"]`, 0},
		{"max safe integer", `[9007199254740991,-9007199254740991]`, 0},
		{"integer beyond 2^53-1", `[9007199254740992]`, CodeNumberRange},
		{"negative integer beyond", `[-9007199254740992]`, CodeNumberRange},
		{"long integer", `[12345678901234567890]`, CodeNumberRange},
		{"float beyond float64", `[1e400]`, CodeNumberRange},
		{"large float is fine", `[1e300]`, 0},
		{"depth 32", strings.Repeat("[", 32) + strings.Repeat("]", 32), 0},
		{"depth 33", strings.Repeat("[", 33) + strings.Repeat("]", 33), CodeTooDeep},
		{"trailing data", `{} {}`, CodeTrailingData},
		{"trailing garbage", `[1]x`, CodeTrailingData},
		{"NUL after value", "{}\x00", CodeTrailingData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), Options{})
			if got := code(err); got != tt.want {
				t.Errorf("Parse(%q) = %v (%v), want code %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func largeObject(n int, dup bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		k := i
		if dup && i == n-1 {
			k = 3
		}
		b.WriteString(`"k` + strings.Repeat("x", k) + `":0`)
	}
	b.WriteString("}")
	return b.String()
}

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Code
	}{
		{"canonical", `{"a":[1,2.5,-3,"x"],"b":{"c":null,"d":true}}`, 0},
		{"whitespace after colon", `{"a": 1}`, CodeNotCanonical},
		{"leading whitespace", ` {}`, CodeNotCanonical},
		{"trailing newline", "{}\n", CodeTrailingData},
		{"repeated name out of order", `{"a":1,"b":2,"a":3}`, CodeDuplicateKey},
		{"repeated name in order", `{"a":1,"a":2}`, CodeDuplicateKey},
		{"repeated name out of order past nested values", `{"a":{"x":"\"}],","y":[1,{"z":"\\"}]},"b":[[],{}],"c":"}","a":3}`, CodeDuplicateKey},
		{"repeated escaped name out of order", `{"\n":1,"a":2,"b":3,"\n":4}`, CodeDuplicateKey},
		{"name out of order past nested values", `{"a":{"x":"\"}],"},"c":[1,{"z":2}],"b":3}`, CodeNotCanonical},
		{"trailing space", "[1] ", CodeTrailingData},
		{"leading space", " [1]", CodeNotCanonical},
		{"underflow to zero", `[1e-400]`, CodeNotCanonical},
		{"keys out of order", `{"b":1,"a":2}`, CodeNotCanonical},
		{"duplicate keys", `{"a":1,"a":2}`, CodeDuplicateKey},
		{"utf-16 order", `{"\ufb33":1,"😂":2}`, CodeNotCanonical},
		{"utf-16 order: surrogates sort below U+FB33", "{\"\U0001F602\":2,\"\uFB33\":1}", 0},
		{"code point order is not utf-16 order", "{\"\uFB33\":1,\"\U0001F602\":2}", CodeNotCanonical},
		{"escaped slash", `["a\/b"]`, CodeNotCanonical},
		{"unneeded unicode escape", `["\u0041"]`, CodeNotCanonical},
		{"escaped newline as unicode", `["\u000a"]`, CodeNotCanonical},
		{"upper-case hex", `["\u001F"]`, CodeNotCanonical},
		{"control escape", `["\u001f"]`, 0},
		{"short escapes", `["\"\\\b\f\n\r\t"]`, 0},
		{"escaped non-ASCII", `["\u00e9"]`, CodeNotCanonical},
		{"DEL literal", "[\"\x7f\"]", 0},
		{"negative zero", `[-0]`, CodeNotCanonical},
		{"trailing zero", `[1.50]`, CodeNotCanonical},
		{"integer as float", `[1.0]`, CodeNotCanonical},
		{"exponent form", `[1e2]`, CodeNotCanonical},
		{"large exponent form", `[1e+21]`, 0},
		{"zero-padded exponent", `[1e+021]`, CodeNotCanonical},
		{"small number", `[0.000001]`, 0},
		{"smaller number", `[1e-7]`, 0},
		{"not shortest", `[0.30000000000000004]`, 0},
		{"not shortest, bad", `[0.300000000000000044]`, CodeNotCanonical},
		{"integer beyond guard", `[10000000000000000]`, CodeNumberRange},
		{"lone surrogate", `["\udc00"]`, CodeLoneSurrogate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), Options{Canonical: true})
			if got := code(err); got != tt.want {
				t.Errorf("Parse(%q, canonical) = %v (%v), want code %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestDeferNumbersRange pins that only the form of a number is deferred:
// a number beyond the range of a double is refused by the parse itself
// (SPEC.md §11.2 step 2), and one that underflows to zero is in range.
func TestDeferNumbersRange(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Code
	}{
		{`[1e400]`, CodeNumberRange},
		{`[-1.5e309]`, CodeNumberRange},
		{`[1e-400]`, 0},
		{`[1.50]`, 0},
	} {
		_, err := Parse([]byte(tt.in), Options{Canonical: true, DeferNumbers: true})
		if got := code(err); got != tt.want {
			t.Errorf("Parse(%s, deferred) = %v (%v), want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestDeferNumbers(t *testing.T) {
	src := []byte(`{"a":[1.50],"b":[2.5]}`)
	d, err := Parse(src, Options{Canonical: true, DeferNumbers: true})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := d.Root().Get("a")
	b, _ := d.Root().Get("b")
	if err := d.CheckNumbers(b); err != nil {
		t.Errorf("CheckNumbers(b) = %v, want nil", err)
	}
	if err := d.CheckNumbers(a); code(err) != CodeNotCanonical {
		t.Errorf("CheckNumbers(a) = %v, want not canonical", err)
	}
	if err := d.CheckNumbers(d.Root()); code(err) != CodeNotCanonical {
		t.Errorf("CheckNumbers(root) = %v, want not canonical", err)
	}
}

func TestIndex(t *testing.T) {
	src := []byte(`{"a":{"b":{"c":[1,2]}},"n":-42,"s":"x\ny","t":true}`)
	d, err := Parse(src, Options{Canonical: true, IndexDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	root := d.Root()
	if root.Kind() != Object || root.Len() != 4 {
		t.Fatalf("root kind %v len %d", root.Kind(), root.Len())
	}
	a, ok := root.Get("a")
	if !ok || string(a.Raw()) != `{"b":{"c":[1,2]}}` {
		t.Fatalf("a = %s", a.Raw())
	}
	b, ok := a.Get("b")
	if !ok || string(b.Raw()) != `{"c":[1,2]}` {
		t.Fatalf("b = %s", b.Raw())
	}
	if b.Indexed() {
		t.Errorf("b is at level 2 and must not have its children indexed")
	}
	if _, ok := b.Get("c"); ok {
		t.Errorf("Get past the index depth must fail")
	}
	if s, ok := mustGet(t, root, "s").Text(); !ok || s != "x\ny" {
		t.Errorf("s = %q", s)
	}
	if n, ok := mustGet(t, root, "n").Int(); !ok || n != -42 {
		t.Errorf("n = %d", n)
	}
	if v, ok := mustGet(t, root, "t").Bool(); !ok || !v {
		t.Errorf("t = %v", v)
	}
	var keys []string
	for k := range root.Members() {
		s, _ := k.Text()
		keys = append(keys, s)
	}
	if !slices.Equal(keys, []string{"a", "n", "s", "t"}) {
		t.Errorf("keys = %q", keys)
	}
}

func mustGet(t *testing.T, v Value, key string) Value {
	t.Helper()
	m, ok := v.Get(key)
	if !ok {
		t.Fatalf("no member %q", key)
	}
	return m
}

// TestCompareKeys checks the allocation-free comparison against a direct
// UTF-16 comparison of decoded names.
func TestCompareKeys(t *testing.T) {
	alphabet := []rune{'a', 'b', '"', '\\', '\n', 0x1f, 'é', 0x7ff, 0xe000, 0xfb33, 0xffff, 0x10000, 0x1f602}
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() (raw []byte, decoded string) {
		var sb, rb strings.Builder
		for range r.IntN(5) {
			c := alphabet[r.IntN(len(alphabet))]
			sb.WriteRune(c)
			switch c {
			case '"':
				rb.WriteString(`\"`)
			case '\\':
				rb.WriteString(`\\`)
			case '\n':
				rb.WriteString(`\n`)
			case 0x1f:
				rb.WriteString(`\u001f`)
			default:
				if r.IntN(4) == 0 && c < 0x10000 {
					rb.WriteString(`\u` + strings.ToUpper(string("0123456789abcdef"[c>>12&15])+string("0123456789abcdef"[c>>8&15])+string("0123456789abcdef"[c>>4&15])+string("0123456789abcdef"[c&15])))
				} else {
					rb.WriteRune(c)
				}
			}
		}
		return []byte(rb.String()), sb.String()
	}
	for range 20000 {
		ra, da := gen()
		rb, db := gen()
		want := slices.Compare(utf16.Encode([]rune(da)), utf16.Encode([]rune(db)))
		if got := compareKeys(ra, rb); got != want {
			t.Fatalf("compareKeys(%q, %q) = %d, want %d", ra, rb, got, want)
		}
	}
}

func TestErrorIsBounded(t *testing.T) {
	long := `{"` + strings.Repeat("k", 10000) + `":1,"` + strings.Repeat("k", 10000) + `":2}`
	_, err := Parse([]byte(long), Options{})
	if code(err) != CodeDuplicateKey || len(err.Error()) > 200 {
		t.Errorf("error %d bytes: %.100v", len(err.Error()), err)
	}
}

func TestCodeStrings(t *testing.T) {
	seen := map[string]bool{}
	for c := CodeSyntax; c <= CodeNotCanonical; c++ {
		s := c.String()
		if !strings.HasPrefix(s, "json_") || seen[s] {
			t.Errorf("code %d: %q", c, s)
		}
		seen[s] = true
	}
}

// TestPlainCanonical checks the fast path of the number check against the
// exact one on random decimals of every shape it claims.
func TestPlainCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	digits := func(n int, leadingZero bool) string {
		var b strings.Builder
		for i := range n {
			d := r.IntN(10)
			if i == 0 && !leadingZero && d == 0 {
				d = 1 + r.IntN(9)
			}
			b.WriteByte(byte('0' + d))
		}
		return b.String()
	}
	checked := 0
	for range 200000 {
		var tok string
		switch r.IntN(3) {
		case 0:
			tok = digits(1+r.IntN(10), false) + "." + digits(1+r.IntN(12), true)
		case 1:
			tok = "0." + strings.Repeat("0", r.IntN(8)) + digits(1+r.IntN(16), true)
		case 2:
			tok = digits(1+r.IntN(20), false) + "." + digits(1+r.IntN(20), true)
		}
		if r.IntN(2) == 0 {
			tok = "-" + tok
		}
		if !plainCanonical([]byte(tok)) {
			continue
		}
		checked++
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil || string(AppendNumber(nil, f)) != tok {
			t.Fatalf("fast path accepts %s, whose canonical form is %s", tok, AppendNumber(nil, f))
		}
	}
	if checked < 50000 {
		t.Fatalf("only %d decimals took the fast path", checked)
	}
	for _, tok := range []string{"0.0000001", "1.50", "01.5", "1.", "1e2", "0.1234567890123456", "-0.0", "1234567890123456.5"} {
		if plainCanonical([]byte(tok)) {
			t.Errorf("fast path accepts %s", tok)
		}
	}
}

// TestIndexPath pins that the value at Options.IndexPath is indexed whole
// while its siblings keep the shallow index, and that a path longer than
// IndexDepth changes nothing.
func TestIndexPath(t *testing.T) {
	src := []byte(`{"a":{"b":{"c":[1,{"d":2}]},"x":{"y":{"z":3}}},"e":{"f":{"g":3}}}`)
	d, err := Parse(src, Options{Canonical: true, IndexDepth: 2, IndexPath: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	b := mustGet(t, mustGet(t, d.Root(), "a"), "b")
	if !b.Indexed() {
		t.Fatal("the value at the path must be indexed")
	}
	c := mustGet(t, b, "c")
	var last Value
	for e := range c.Elements() {
		last = e
	}
	if got := mustGet(t, last, "d"); string(got.Raw()) != "2" {
		t.Errorf("a.b.c[1].d = %s", got.Raw())
	}
	if x := mustGet(t, mustGet(t, d.Root(), "a"), "x"); x.Indexed() {
		t.Error("a sibling of the path's value must keep the shallow index")
	}
	if f := mustGet(t, mustGet(t, d.Root(), "e"), "f"); f.Indexed() {
		t.Error("a value off the path must keep the shallow index")
	}
	d, err = Parse(src, Options{Canonical: true, IndexDepth: 1, IndexPath: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if a := mustGet(t, d.Root(), "a"); a.Indexed() {
		t.Error("a path longer than IndexDepth must have no effect")
	}
}

// TestValueInt compares Int with strconv.ParseInt on every number form.
func TestValueInt(t *testing.T) {
	src := `[0,-0,7,-42,9007199254740991,-9007199254740991,1.5,-0.25,1e2,1E+2,-1e-2,10,100000]`
	d, err := Parse([]byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for e := range d.Root().Elements() {
		want, err := strconv.ParseInt(string(e.Raw()), 10, 64)
		got, ok := e.Int()
		if ok != (err == nil) || got != want {
			t.Errorf("Int(%s) = %d, %v; ParseInt gives %d, %v", e.Raw(), got, ok, want, err)
		}
	}
	if _, ok := mustGet(t, mustParse(t, `{"s":"1"}`).Root(), "s").Int(); ok {
		t.Error("Int of a string")
	}
}

func mustParse(t *testing.T, s string) *Doc {
	t.Helper()
	d, err := Parse([]byte(s), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
