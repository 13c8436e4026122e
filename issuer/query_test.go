package issuer

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// testSpec takes a, b (repeatable) and the context dimensions.
var testSpec = QuerySpec{Params: append([]QueryParam{{Name: "a"}, {Name: "b", Multi: true}}, ContextParams()...)}

func TestQuerySpecRead(t *testing.T) {
	v, err := testSpec.Read("a=1+2&b=x&&b=%C3%A9&domain=")
	if err != nil || !slices.Equal(v["a"], []string{"1 2"}) || !slices.Equal(v["b"], []string{"x", "é"}) || !slices.Equal(v["domain"], []string{""}) {
		t.Fatalf("%v %v", v, err)
	}
	for _, c := range []struct {
		name, raw, detail string
	}{
		{"a bad escape in a value", "a=%zz", `the query field "a" is not percent-encoded correctly`},
		{"a bad escape in a name", "%zz=1", `the query field "%zz" is not percent-encoded correctly`},
		{"a truncated escape", "a=1%2", `the query field "a" is not percent-encoded correctly`},
		{"a semicolon", "a=1;b=2", "query fields are separated by &, not ;"},
		{"an unknown name", "c=1", `unknown query parameter "c": the parameters are a, b, domain, environment, protocol, version, workload, constraints`},
		{"a name in another case", "A=1", `unknown query parameter "A": the parameters are a, b, domain, environment, protocol, version, workload, constraints`},
		{"an unknown name without a value", "a=1&c", `unknown query parameter "c": the parameters are a, b, domain, environment, protocol, version, workload, constraints`},
		{"a repeated single-valued name", "a=1&a=1", `the query parameter "a" is given more than once`},
		{"too long", "b=" + strings.Repeat("x", MaxQuery-1), "the query string exceeds 8192 bytes"},
		// The whole order: every field decodes, then unknown names in
		// byte order, then repeats in byte order.
		{"decoding before names", "zz=1&a=%zz", `the query field "a" is not percent-encoded correctly`},
		{"the first unknown in byte order", "zz=1&yy=1", `unknown query parameter "yy": the parameters are a, b, domain, environment, protocol, version, workload, constraints`},
		{"unknown before repeated", "a=1&a=2&zz=1", `unknown query parameter "zz": the parameters are a, b, domain, environment, protocol, version, workload, constraints`},
		{"the first repeat in byte order", "domain=x&domain=y&a=1&a=2", `the query parameter "a" is given more than once`},
	} {
		_, err := testSpec.Read(c.raw)
		if ErrorCode(err) != CodeInvalid || ErrorMessage(err) != c.detail {
			t.Errorf("%s: %v, want %q", c.name, err, c.detail)
		}
	}
	if _, err := NoQuery.Read("x=1"); ErrorMessage(err) != `unknown query parameter "x": this address takes no query parameter` {
		t.Errorf("no query: %v", err)
	}
	if v, err := NoQuery.Read("&&"); err != nil || len(v) != 0 {
		t.Errorf("empty fields: %v %v", v, err)
	}
}

// TestQuerySpecReadFields: field by field, the first fault in order wins.
func TestQuerySpecReadFields(t *testing.T) {
	var got []string
	err := testSpec.ReadFields("b=1&a=2&b=3", func(name, value string) error {
		got = append(got, name+"="+value)
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"b=1", "a=2", "b=3"}) {
		t.Fatalf("%v %v", got, err)
	}
	for raw, detail := range map[string]string{
		"zz=1&a=%zz": `unknown query parameter "zz": the parameters are a, b, domain, environment, protocol, version, workload, constraints`,
		"a=%zz&zz=1": `the query field "a" is not percent-encoded correctly`,
		"a=1&a=2&zz": `the query parameter "a" is given more than once`,
	} {
		err := testSpec.ReadFields(raw, func(string, string) error { return nil })
		if ErrorMessage(err) != detail {
			t.Errorf("%q: %v, want %q", raw, err, detail)
		}
	}
}

// FuzzQuerySpec: reading never panics; Read and ReadFields accept the
// same query strings and read the same fields; what is accepted holds
// only the spec's names, a single-valued one once, and written back
// (url.Values.Encode) reads to the same values; every refusal is
// invalid_request.
func FuzzQuerySpec(f *testing.F) {
	for _, s := range []string{"", "a=1", "a=1&b=2&b=3", "a=%zz", "%zz", "a=1;b=2", "a", "=", "&&a=&", "c=1", "a=1&a=2",
		"domain=%E2%80%AE&b=+", "b=%2B%26%3D%3B", "a=%c3%28"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := testSpec.Read(raw)
		var fields url.Values
		ferr := testSpec.ReadFields(raw, func(name, value string) error {
			if fields == nil {
				fields = url.Values{}
			}
			fields[name] = append(fields[name], value)
			return nil
		})
		if (err == nil) != (ferr == nil) {
			t.Fatalf("%q: Read %v, ReadFields %v", raw, err, ferr)
		}
		if err != nil {
			if ErrorCode(err) != CodeInvalid || ErrorCode(ferr) != CodeInvalid {
				t.Fatalf("%q: refused with %v, %v", raw, err, ferr)
			}
			return
		}
		if len(v) != len(fields) {
			t.Fatalf("%q: Read %v, ReadFields %v", raw, v, fields)
		}
		for name, vals := range v {
			p, ok := testSpec.param(name)
			if !ok || !p.Multi && len(vals) != 1 || !slices.Equal(vals, fields[name]) {
				t.Fatalf("%q: accepted %q=%q (ReadFields %q)", raw, name, vals, fields[name])
			}
		}
		back := v.Encode()
		if len(back) > MaxQuery {
			return
		}
		again, err := testSpec.Read(back)
		if err != nil || len(again) != len(v) {
			t.Fatalf("%q read as %v, written back as %q, reads as %v, %v", raw, v, back, again, err)
		}
		for name, vals := range v {
			if !slices.Equal(again[name], vals) {
				t.Fatalf("%q: %s is %q, written back %q", raw, name, vals, again[name])
			}
		}
	})
}
