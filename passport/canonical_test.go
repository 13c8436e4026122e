package passport

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/internal/extdata"
)

// TestRFC8785 checks Canonicalize against the reference input/output pairs,
// byte for byte, and against their hex dumps.
func TestRFC8785(t *testing.T) {
	dir := extdata.Path(t, "jcs")
	inputs, err := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in %s: %v", dir, err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			src := readFile(t, in)
			want := readFile(t, filepath.Join(dir, "output", name))
			hexDump := readFile(t, filepath.Join(dir, "outhex", strings.TrimSuffix(name, ".json")+".txt"))
			wantHex, err := hex.DecodeString(strings.Join(strings.Fields(string(hexDump)), ""))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, wantHex) {
				t.Fatalf("reference output and hex dump disagree")
			}
			got, err := Canonicalize(src)
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Canonicalize =\n%s\nwant\n%s", got, want)
			}
			if err := CheckCanonical(want); err != nil {
				t.Errorf("CheckCanonical(output) = %v", err)
			}
			if !bytes.Equal(src, want) {
				if err := CheckCanonical(src); err == nil {
					t.Errorf("CheckCanonical(input) accepted a non-canonical input")
				}
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCanonicalizeGuards(t *testing.T) {
	tests := []struct {
		in, reason string
	}{
		{`{"a":1,"a":1}`, "json_duplicate_key"},
		{"[\"\xff\"]", "json_invalid_utf8"},
		{`["\ud800"]`, "json_lone_surrogate"},
		{`[9007199254740992]`, "json_number_range"},
		{`[1e16]`, "json_number_range"}, // canonically an integer beyond the guard
		{strings.Repeat("[", 40) + strings.Repeat("]", 40), "json_too_deep"},
		{`{} x`, "json_trailing_data"},
		{`{"a":}`, "json_malformed"},
	}
	for _, tt := range tests {
		_, err := Canonicalize([]byte(tt.in))
		if ReasonOf(err) != Reason(tt.reason) {
			t.Errorf("Canonicalize(%.40q) = %v, want reason %s", tt.in, err, tt.reason)
		}
	}
}

func TestMarshal(t *testing.T) {
	got, err := Marshal(map[string]any{"b": 1.5, "a": []string{"<&>"}, "c": nil})
	if err != nil {
		t.Fatal(err)
	}
	// encoding/json's HTML escapes are undone by canonicalisation.
	if want := `{"a":["<&>"],"b":1.5,"c":null}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
}

// A passport without skill passports predates the trust model: it has no
// trustModelVersion member at all (SPEC.md §3), never an empty one, which
// verifiers refuse as version_unsupported.
func TestPassportWithoutTrustModelOmitsItsVersion(t *testing.T) {
	p := Passport{PassportVersion: Version, Issuer: "https://issuer.example", Subject: Subject{ID: "agt_7Qm2xKp9"}}
	got, err := Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte("trustModelVersion")) {
		t.Fatalf("Marshal = %s, want no trustModelVersion member", got)
	}
	p.TrustModelVersion = TrustModelVersion
	if got, _ = Marshal(p); !bytes.Contains(got, []byte(`"trustModelVersion":"`+TrustModelVersion+`"`)) {
		t.Fatalf("Marshal = %s, want trustModelVersion %s", got, TrustModelVersion)
	}
}

// TestJSONReasonsAreOneVocabulary pins that every refusal code of the strict
// parser converts to a declared json_* Reason.
func TestJSONReasonsAreOneVocabulary(t *testing.T) {
	declared := map[Reason]bool{
		ReasonJSONMalformed: true, ReasonJSONInvalidUTF8: true, ReasonJSONLoneSurrogate: true,
		ReasonJSONDuplicateKey: true, ReasonJSONNumberRange: true, ReasonJSONTooDeep: true,
		ReasonJSONTrailingData: true, ReasonJSONNotCanonical: true,
	}
	seen := map[Reason]bool{}
	for c := cjson.CodeSyntax; c <= cjson.CodeNotCanonical; c++ {
		r := ReasonOf(JSONError(&cjson.Error{Code: c, Msg: "x"}))
		if !declared[r] {
			t.Errorf("code %d converts to %q, not a declared Reason", c, r)
		}
		seen[r] = true
	}
	if len(seen) != len(declared) {
		t.Errorf("%d codes cover %d of %d json reasons", cjson.CodeNotCanonical, len(seen), len(declared))
	}
}
