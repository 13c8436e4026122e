package issuer_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// fuzzRequest has a field of every kind the decoder binds.
type fuzzRequest struct {
	Name    string            `json:"name"`
	Note    *string           `json:"note,omitempty"`
	Limit   *int              `json:"limit,omitempty"`
	Count   int               `json:"count"`
	Flag    bool              `json:"flag"`
	Labels  []string          `json:"labels,omitempty"`
	Score   *reputation.Milli `json:"score,omitempty"`
	Lineage *struct {
		Relation string `json:"relation"`
	} `json:"lineage,omitempty"`
}

// FuzzDecode checks the strict decoder against encoding/json: whatever it
// accepts, encoding/json (with unknown fields disallowed) decodes to the
// same value, and re-encoding that value decodes to it again; whatever it
// refuses, it refuses with a caller error whose message is valid UTF-8.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","note":"n","limit":3,"count":-1,"flag":true,"labels":["x","y"],"score":0.5,"lineage":{"relation":"extends"}}`,
		`{"name":"a","NAME":"b"}`, `{"nAmE":"a"}`, `{"name":"\u006eame"}`, `{"name":"\ud800"}`,
		`{"limit":1e308}`, `{"limit":null}`, `{"name":null}`, `{} {}`, `[]`, `{"lineage":{"relation":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got fuzzRequest
		err := issuer.Decode(body, 4096, &got)
		if err != nil {
			checkCallerError(t, err)
			if msg := issuer.ErrorMessage(err); !utf8.ValidString(msg) || msg == "" {
				t.Fatalf("message %q", msg)
			}
			return
		}
		var want fuzzRequest
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", body, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %+v, encoding/json %+v", body, got, want)
		}
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var round fuzzRequest
		if err := issuer.Decode(again, 1<<20, &round); err != nil {
			t.Fatalf("re-encoded %s refused: %v", again, err)
		}
		if !reflect.DeepEqual(got, round) {
			t.Fatalf("round trip %+v != %+v", round, got)
		}
	})
}

// TestDecodeRawMessage: a json.RawMessage field takes a value of any JSON
// type as the bytes the caller wrote, null included; the nesting bound and
// the name rules still cover it.
func TestDecodeRawMessage(t *testing.T) {
	type request struct {
		Value json.RawMessage `json:"value"`
		Other *string         `json:"other,omitempty"`
	}
	for _, c := range []struct {
		body, want string
		code       issuer.Code
	}{
		{`{"value":"a\u0022b"}`, `"a\u0022b"`, ""},
		{`{"value": { "b" : [1, 2.50] } }`, `{ "b" : [1, 2.50] }`, ""},
		{`{"value":null}`, `null`, ""},
		{`{"value":7,"other":"x"}`, `7`, ""},
		{`{"other":"x"}`, ``, ""},
		{`{"value":[[[[[[[1]]]]]]]}`, `[[[[[[[1]]]]]]]`, ""},
		{`{"value":[[[[[[[[1]]]]]]]]}`, ``, issuer.CodeJSONTooDeep},
		{`{"value":{"a":1,"a":2}}`, ``, issuer.CodeJSONDuplicateKey},
		{`{"value":1,"Value":2}`, ``, issuer.CodeJSONDuplicateKey},
		{`{"value":1,"extra":2}`, ``, issuer.CodeJSONUnknownMember},
	} {
		var r request
		err := issuer.Decode([]byte(c.body), 1024, &r)
		if got := issuer.ErrorCode(err); got != c.code {
			t.Fatalf("%s: code %q (%v), want %q", c.body, got, err, c.code)
		}
		if err == nil && string(r.Value) != c.want {
			t.Fatalf("%s: value %s, want %s", c.body, r.Value, c.want)
		}
	}
}

// TestDecodeVectors runs the decoding vectors SPEC.md §13.1 points to.
func TestDecodeVectors(t *testing.T) {
	b, err := os.ReadFile("testdata/decode/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name string      `json:"name"`
			Body string      `json:"body"`
			Code issuer.Code `json:"code"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 10 {
		t.Fatalf("%d vectors", len(file.Cases))
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var r issuer.FeedbackRequest
			err := issuer.Decode([]byte(c.Body), issuer.MaxFeedbackBody, &r)
			if got := issuer.ErrorCode(err); got != c.Code {
				t.Fatalf("%s: code %q (%v), want %q", c.Body, got, err, c.Code)
			}
		})
	}
}

// BenchmarkDecode measures the strict decoder on a publication body, with
// encoding/json (unknown fields disallowed) on the same body as the
// baseline of the same run.
func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"category":"Power BI / Performance","title":"Query folding","content":"` +
		strings.Repeat("Keep steps foldable. ", 200) + `","appliesTo":{"skill":"power bi","domain":"sql"},"confidence":0.75,` +
		`"lineage":{"relation":"extends","memoryId":"mem_aaaaaaaaaaaaaaaaaaaaaaaaaa"}}`)
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var r issuer.PublishRequest
			if err := issuer.Decode(body, issuer.MaxPublishBody, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var r issuer.PublishRequest
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
