package trustgraph

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	vectors "github.com/remnant/passportkit/vectors/trustgraph"
)

// TestParseSignalQueryRefusals: each malformed query is refused with its
// reason code.
func TestParseSignalQueryRefusals(t *testing.T) {
	long := strings.Repeat("k", MaxIDBytes+1)
	for _, tc := range []struct {
		name, in string
		reason   ReasonCode
	}{
		{"not json", `{"kind":`, ReasonBadSignal},
		{"duplicate member", `{"kind":"floor","kind":"decay","input":{"ageDays":1}}`, ReasonBadSignal},
		{"trailing data", `{"kind":"floor","input":{"ageDays":1}} {}`, ReasonBadSignal},
		{"number beyond a double", `{"kind":"floor","input":{"ageDays":1e400}}`, ReasonBadSignal},
		{"not an object", `[1]`, ReasonBadSignal},
		{"no kind", `{"input":{"ageDays":1}}`, ReasonBadSignal},
		{"no input", `{"kind":"floor"}`, ReasonBadSignal},
		{"null input", `{"kind":"floor","input":null}`, ReasonBadSignal},
		{"unknown kind", `{"kind":"propagate","input":{}}`, ReasonBadSignal},
		{"unknown top member", `{"kind":"floor","input":{"ageDays":1},"edges":""}`, ReasonBadSignal},
		{"unknown input member", `{"kind":"floor","input":{"ageDays":1,"age":2}}`, ReasonBadSignal},
		{"name in another case", `{"Kind":"floor","input":{"ageDays":1}}`, ReasonBadSignal},
		{"input name in another case", `{"kind":"floor","input":{"ageDays":1,"AgeDays":2}}`, ReasonBadSignal},
		{"nested name in another case", `{"kind":"groups","input":{"author":"a","keys":[{"ID":"b"}]}}`, ReasonBadSignal},
		{"missing member", `{"kind":"floor","input":{"floorCap":0.01}}`, ReasonBadSignal},
		{"wrong type", `{"kind":"floor","input":{"ageDays":"1"}}`, ReasonBadSignal},
		{"null floor cap", `{"kind":"floor","input":{"ageDays":40,"floorCap":null}}`, ReasonBadSignal},
		{"null graph weight", `{"kind":"floor","input":{"ageDays":40,"graphCarriesWeight":null}}`, ReasonBadSignal},
		{"graph weight not a boolean", `{"kind":"floor","input":{"ageDays":40,"graphCarriesWeight":1}}`, ReasonBadSignal},
		{"null accept", `{"kind":"status","input":{"confirmations":[{"weight":1,"decay":1,"accept":null}]}}`, ReasonBadSignal},
		{"null owner", `{"kind":"groups","input":{"author":"a","keys":[{"id":"b","owner":null}]}}`, ReasonBadSignal},
		{"unknown signal kind", `{"kind":"decay","input":{"kind":"like","ageDays":1}}`, ReasonBadSignal},
		{"missing clock day", `{"kind":"clock","input":{"asOf":1}}`, ReasonBadSignal},
		{"missing author", `{"kind":"groups","input":{"keys":[]}}`, ReasonBadSignal},
		{"missing key id", `{"kind":"groups","input":{"author":"a","keys":[{"owner":"o"}]}}`, ReasonBadSignal},
		{"missing signal weight", `{"kind":"groups","input":{"author":"a","signals":[{"key":"b"}]}}`, ReasonBadSignal},
		{"missing decay", `{"kind":"status","input":{"confirmations":[{"weight":1}]}}`, ReasonBadSignal},
		{"empty author", `{"kind":"groups","input":{"author":""}}`, ReasonBadID},
		{"long voucher", `{"kind":"groups","input":{"author":"a","keys":[{"id":"b","vouchedBy":["` + long + `"]}]}}`, ReasonBadID},
		{"empty owner", `{"kind":"groups","input":{"author":"a","keys":[{"id":"b","owner":""}]}}`, ReasonBadID},
		{"too many renewals", `{"kind":"clock","input":{"confirmedDay":0,"asOf":1,"renewalDays":[` + strings.Repeat("1,", MaxSignalItems) + `1]}}`, ReasonTooLarge},
		{"too many bytes", `{"kind":"floor","input":{"ageDays":1}}` + strings.Repeat(" ", MaxSignalQueryBytes), ReasonTooLarge},
	} {
		_, err := ParseSignalQuery([]byte(tc.in))
		if got := Reason(err); got != tc.reason {
			t.Errorf("%s: reason %q (%v), want %q", tc.name, got, err, tc.reason)
		}
	}
}

// TestSignalQueryDefaults: an absent floor cap is the default; absent
// arrays and flags are empty and false.
func TestSignalQueryDefaults(t *testing.T) {
	q, err := ParseSignalQuery([]byte(`{"kind":"floor","input":{"ageDays":30}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := q.Eval()
	if err != nil || r.Floor != DefaultFloorCap {
		t.Errorf("floor %v (%v), want the default cap %v", r.Floor, err, DefaultFloorCap)
	}
	q, err = ParseSignalQuery([]byte(`{"kind":"status","input":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := q.Eval(); r.Status != Unverified {
		t.Errorf("status %q, want unverified", r.Status)
	}
	q, err = ParseSignalQuery([]byte(`{"kind":"groups","input":{"author":"a"}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, _ = q.Eval()
	b, _ := json.Marshal(r)
	if string(b) != `{"groups":{},"kind":"groups","tally":{"weight":0,"groups":0,"self":0}}` {
		t.Errorf("empty groups result %s", b)
	}
}

// FuzzParseSignalQuery: whatever parses evaluates without panicking, and
// whatever is refused is refused with a reason code. The seeds are every
// signal vector file as it stands.
func FuzzParseSignalQuery(f *testing.F) {
	names, err := fs.Glob(vectors.FS(), "cases/*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(vectors.FS(), n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"floor","input":{"ageDays":1}}`))
	f.Add([]byte(`{"kind":"groups","input":{"author":"a","keys":[{"id":"b","vouchedBy":["a"]}],"signals":[{"key":"b","weight":1}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := ParseSignalQuery(b)
		if err != nil {
			if Reason(err) == "" {
				t.Fatalf("refused without a reason code: %v", err)
			}
			return
		}
		r, err := q.Eval()
		if err != nil {
			if Reason(err) != ReasonBadOption {
				t.Fatalf("eval refused with %v", err)
			}
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseSignalQuery(b); err != nil {
			t.Fatalf("a second parse refused what the first accepted: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("result is not JSON: %s", out)
		}
	})
}
