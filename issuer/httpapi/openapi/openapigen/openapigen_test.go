package openapigen

import (
	"math/rand/v2"
	"regexp"
	"testing"
	"unicode/utf8"
)

// TestMatching: strings generated from a pattern match it, for the kinds
// of pattern the issuer's document uses.
func TestMatching(t *testing.T) {
	v := &values{rnd: rand.New(rand.NewPCG(1, 2)), res: map[string]*regexp.Regexp{}}
	for _, p := range []string{
		`^mem_[a-z2-7]{26}$`,
		`^[0-9a-f]{64}$`,
		`^[A-Za-z0-9_-]+$`,
		`^agt_[a-z2-7]{26}(,agt_[a-z2-7]{26})*$`,
		`^[\t-\r\x85\p{Z}]*[^\p{Cc}\p{Cf}\p{Z}](?:[^\p{Cc}\p{Cf}]*[^\p{Cc}\p{Cf}\p{Z}])?[\t-\r\x85\p{Z}]*$`,
		`^(?:a|bc|[^x])?z$`,
	} {
		re := regexp.MustCompile(p)
		for range 200 {
			if s := v.matching(p); !utf8.ValidString(s) || !re.MatchString(s) {
				t.Fatalf("%s: generated %q, which does not match", p, s)
			}
		}
	}
}

// TestNumbers: a number drawn for a multipleOf is a multiple of it, within
// the bounds, written as a plain decimal.
func TestNumbers(t *testing.T) {
	v := &values{rnd: rand.New(rand.NewPCG(3, 4))}
	s := schema{"type": "number", "minimum": 0.0, "maximum": 1.0, "multipleOf": 0.001}
	plain := regexp.MustCompile(`^(0|1|0\.[0-9]{1,3})$`)
	for range 500 {
		if n := v.number(s); !plain.MatchString(string(n)) {
			t.Fatalf("drew %s", n)
		}
	}
}
