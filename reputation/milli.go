package reputation

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Milli is a quantity in thousandths: 1500 is 1.5. Scores, weights, factors
// and confidences are all Milli, so arithmetic is exact and reproducible.
type Milli int64

// One is 1 in thousandths.
const One Milli = 1000

// String formats m as a decimal with at most three fractional digits and no
// trailing zeros: "0.5", "-0.062", "12".
func (m Milli) String() string {
	return string(m.AppendText(nil))
}

// AppendText appends the decimal form of m to b.
func (m Milli) AppendText(b []byte) []byte {
	v := int64(m)
	if v < 0 {
		b = append(b, '-')
	}
	u := uint64(v)
	if v < 0 {
		u = uint64(-v)
		if v == math.MinInt64 {
			u = uint64(math.MaxInt64) + 1
		}
	}
	b = strconv.AppendUint(b, u/1000, 10)
	frac := u % 1000
	if frac == 0 {
		return b
	}
	digits := []byte{'0' + byte(frac/100), '0' + byte(frac/10%10), '0' + byte(frac%10)}
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	b = append(b, '.')
	return append(b, digits...)
}

// MarshalJSON encodes m as a JSON number with at most three fractional
// digits.
func (m Milli) MarshalJSON() ([]byte, error) { return m.AppendText(nil), nil }

// errMilliSyntax reports a decimal that ParseMilli cannot read.
var errMilliSyntax = errors.New("not a decimal with at most three fractional digits")

// ParseMilli reads a decimal such as "0.5", "-1" or "0.062" exactly. More than
// three fractional digits, exponents and values beyond ±9e15 are refused.
func ParseMilli(s string) (Milli, error) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if whole == "" || len(whole) > 16 || (hasFrac && (frac == "" || len(frac) > 3)) {
		return 0, errMilliSyntax
	}
	var v int64
	for _, c := range whole + (frac + "000")[:3] {
		if c < '0' || c > '9' {
			return 0, errMilliSyntax
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return Milli(v), nil
}

// UnmarshalJSON decodes a JSON number with at most three fractional digits.
func (m *Milli) UnmarshalJSON(data []byte) error {
	v, err := ParseMilli(string(data))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// mulRound returns a×b/1000 rounded to the nearest integer, halves away from
// zero, so that a negative figure is the exact mirror of its positive twin.
func mulRound(a, b Milli) Milli {
	return divRound(int64(a)*int64(b), 1000)
}

// divRound returns n/d rounded to the nearest integer, halves away from zero.
// d must be positive.
func divRound(n, d int64) Milli {
	if n < 0 {
		return -Milli((-n + d/2) / d)
	}
	return Milli((n + d/2) / d)
}

// clamp bounds m to [lo, hi].
func clamp(m, lo, hi Milli) Milli {
	return max(lo, min(hi, m))
}
