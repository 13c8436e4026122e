package verifier

import (
	"bytes"
	"testing"

	"github.com/remnant/passportkit/internal/cjson"
)

// FuzzMemberRaw holds memberRaw to the parser: in any object that is
// canonical JSON, each member whose name needs no escape is found with the
// bytes the parser's index gives it, and a name that is not a member is
// not found.
func FuzzMemberRaw(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"domain":"x","updatedAt":"2026-01-02T03:04:05Z"}`,
		`{"a":{"updatedAt":"nested"},"b":[1,{"c":"]}"}],"updatedAt":null}`,
		`{"a":"q\"uo\\te","b":"\u0001","updatedAt":-1.5e-7}`, `{"":0,"a":[[],{}],"z":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := cjson.Parse(b, cjson.Options{Canonical: true})
		if err != nil || doc.Root().Kind() != cjson.Object {
			return
		}
		names := map[string]bool{}
		for k, v := range doc.Root().Members() {
			raw, _ := k.RawText()
			if bytes.IndexByte(raw, '\\') >= 0 {
				continue
			}
			names[string(raw)] = true
			got, ok := memberRaw(doc.Root().Raw(), string(raw))
			if !ok || !bytes.Equal(got, v.Raw()) {
				t.Fatalf("member %q of %s: got %q %v, want %q", raw, b, got, ok, v.Raw())
			}
		}
		for _, absent := range []string{"updatedAt", "zz", "a"} {
			if !names[absent] {
				if got, ok := memberRaw(doc.Root().Raw(), absent); ok {
					t.Fatalf("%q is no member of %s, found %q", absent, b, got)
				}
			}
		}
	})
}
