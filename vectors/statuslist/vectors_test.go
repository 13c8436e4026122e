package statuslist_test

import (
	"encoding/hex"
	"errors"
	"flag"
	"strconv"
	"testing"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
	"github.com/remnant/passportkit/vectors/internal/vectorcase"
	vectors "github.com/remnant/passportkit/vectors/statuslist"
	"github.com/remnant/passportkit/vectors/statuslist/internal/gen"
)

var update = flag.Bool("update", false, "rewrite the case files from the generator")

// TestGenerated checks that the case files are exactly what the generator
// writes; with -update it rewrites them.
func TestGenerated(t *testing.T) {
	vectorcase.CheckGenerated(t, ".", gen.Cases(), func(c vectors.Case) string { return c.Name }, *update)
}

// TestCases runs every case through package statuslist.
func TestCases(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, c := range cases {
		kinds[c.Kind]++
		t.Run(c.Name, func(t *testing.T) {
			var got map[string]any
			var err error
			switch c.Kind {
			case vectors.KindLst:
				got, err = decode(c.Bits, c.Lst)
			case vectors.KindPayload:
				got, err = parse(c.Payload)
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
			if c.Fail() {
				if err == nil {
					t.Fatal("accepted")
				}
				got = refusal(err)
			} else if err != nil {
				t.Fatal(err)
			}
			for k, want := range c.Expect {
				if !vectorcase.Equal(want, got[k]) {
					t.Errorf("%s: got %v, want %v", k, got[k], want)
				}
			}
		})
	}
	if kinds[vectors.KindLst] < 15 || kinds[vectors.KindPayload] < 15 {
		t.Errorf("cases by kind %v; at least 15 of each are expected", kinds)
	}
}

// decode reads an lst into the expectations' terms: size, the array in
// hex and every non-zero status.
func decode(bits int, lst string) (map[string]any, error) {
	l, err := statuslist.Decode(bits, lst, statuslist.MaxBytes)
	if err != nil {
		return nil, err
	}
	statuses := map[string]any{}
	array := make([]byte, l.Len()*bits/8)
	for i := range l.Len() {
		v, err := l.Get(i)
		if err != nil {
			return nil, err
		}
		if v != 0 {
			statuses[strconv.Itoa(i)] = float64(v)
		}
		array[i*bits/8] |= v << (i * bits % 8)
	}
	return map[string]any{"size": float64(l.Len()), "bytes": hex.EncodeToString(array), "statuses": statuses}, nil
}

func parse(payload string) (map[string]any, error) {
	p, err := statuslist.ParsePayload([]byte(payload))
	if err != nil {
		return nil, err
	}
	return map[string]any{"exp": float64(p.Exp), "iat": float64(p.Iat), "iss": p.Iss, "bits": float64(p.StatusList.Bits),
		"lst": p.StatusList.Lst, "sub": p.Sub, "ttl": float64(p.TTL)}, nil
}

// refusal names a refusal by the classes of README.md.
func refusal(err error) map[string]any {
	out := map[string]any{}
	var pe *statuslist.PayloadError
	if errors.As(err, &pe) && pe.Member != "" {
		out["member"] = pe.Member
	}
	for class, target := range map[string]error{
		"bits_invalid": statuslist.ErrBits, "lst_malformed": statuslist.ErrMalformed, "lst_too_large": statuslist.ErrTooLarge,
		"member_unknown": statuslist.ErrMemberUnknown, "member_missing": statuslist.ErrMemberMissing, "member_invalid": statuslist.ErrMemberInvalid,
	} {
		if errors.Is(err, target) {
			out["error"] = class
		}
	}
	if r := passport.ReasonOf(err); r != "" {
		out["error"] = string(r)
	}
	return out
}
