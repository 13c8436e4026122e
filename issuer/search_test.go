package issuer

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSearchTerms(t *testing.T) {
	got := SearchTerms(`Vacuum "tuning" OR vacuum* NEAR(x) -bloat ÉTÉ`)
	want := []string{"vacuum", "tuning", "or", "near", "x", "bloat", "été"}
	if !slices.Equal(got, want) {
		t.Fatalf("%q, want %q", got, want)
	}
	many := ""
	for i := range 40 {
		many += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := len(SearchTerms(many)); n != 40 {
		t.Fatalf("%d terms", n)
	}
}

func TestParseSearchQuery(t *testing.T) {
	q, err := ParseSearchQuery("q=vacuum&limit=50&offset=150&include_low=true")
	if err != nil || q.Limit != 50 || q.Offset != 150 || !q.IncludeLow || q.TrustSet != nil {
		t.Fatalf("%+v %v", q, err)
	}
	if q, err := ParseSearchQuery("q=x"); err != nil || q.Limit != DefaultSearchLimit {
		t.Fatalf("defaults: %+v %v", q, err)
	}
	words := func(n int) string {
		var w []string
		for i := range n {
			w = append(w, "w"+strconv.Itoa(i))
		}
		return strings.Join(w, "+")
	}
	if q, err := ParseSearchQuery("q=" + words(MaxSearchTerms) + "+w0+W1"); err != nil || len(q.Terms) != MaxSearchTerms {
		t.Fatalf("16 distinct words, repeats among them: %+v %v", q, err)
	}
	for name, raw := range map[string]string{
		"a 17th word":           "q=" + words(MaxSearchTerms+1),
		"not percent-encoded":   "q=x&limit=%zz",
		"a bad name encoding":   "q=x&%zz=1",
		"a repeated parameter":  "q=x&limit=1&limit=2",
		"an unknown parameter":  "q=x&sort=new",
		"a semicolon":           "q=x;limit=2",
		"no words":              "q=%2B%2B",
		"an empty trust member": "q=x&trust=",
	} {
		if _, err := ParseSearchQuery(raw); ErrorCode(err) != CodeInvalid {
			t.Errorf("%s: %v, want %s", name, err, CodeInvalid)
		}
	}
}

// FuzzParseSearchQuery checks that whatever parses is within the bounds.
func FuzzParseSearchQuery(f *testing.F) {
	for _, s := range []string{"q=vacuum", "q=a+b&limit=5&offset=10", "q=x&trust=agt_a,agt_b", "q=%00", "include_low=true", "q=x&limit=999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParseSearchQuery(raw)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%T is not an *Error", err)
			}
			return
		}
		if len(q.Terms) == 0 || len(q.Terms) > MaxSearchTerms || q.Limit < 1 || q.Limit > MaxSearchLimit ||
			q.Offset < 0 || q.Offset+q.Limit > SearchWindow || len(q.TrustSet) > MaxSearchTrustSet {
			t.Fatalf("out of bounds: %+v", q)
		}
	})
}
