package issuing_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// thumbprints returns the thumbprints of n fixed holder keys, not sorted.
func thumbprints(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		k, err := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{byte(i + 1)}, 32))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.Public().KeyID())
	}
	if slices.IsSorted(out) {
		slices.Reverse(out)
	}
	return out
}

// TestBinding: a passport names its subject's holder keys in byte order
// and carries the status reference it was given; the same inputs in
// another order sign to the same bytes; a later change to the options
// does not reach an assembled draft.
func TestBinding(t *testing.T) {
	sg, v := signer(t)
	s := newWorld(5).Subject(shape{Memories: 10, Events: 60, Agents: 4, Operators: 2, Capabilities: 1})
	s.HolderKeys = thumbprints(t, 3)
	opt := options()
	opt.Status = &passport.StatusRef{StatusList: passport.StatusListRef{Idx: 77, URI: "https://issuer.test/status/l1"}}

	c := collect(t, s)
	draft, err := issuing.Assemble(s, c, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Status.StatusList.Idx = 78
	a, err := draft.Sign(sg, issuing.DisclosePreviews)
	if err != nil {
		t.Fatal(err)
	}
	res := verify(t, v, a.Bundle)
	p := decode(t, res)
	if p.PassportVersion != passport.Version || p.Cnf == nil || !slices.Equal(p.Cnf.JKTs, slices.Sorted(slices.Values(s.HolderKeys))) {
		t.Fatalf("cnf %+v, want the holder keys sorted", p.Cnf)
	}
	if p.Status == nil || p.Status.StatusList.Idx != 77 || p.Status.StatusList.URI != "https://issuer.test/status/l1" {
		t.Fatalf("status %+v", p.Status)
	}
	if c := res.Checks[len(res.Checks)-1]; c.Name != verifier.CheckStatus || c.Reason != passport.ReasonNotChecked {
		t.Errorf("status check %+v, want not_checked without a list", c)
	}

	again := *s
	again.HolderKeys = slices.Sorted(slices.Values(s.HolderKeys))
	opt.Status.StatusList.Idx = 77
	b := issue(t, &again, testKey, sg, opt, issuing.DisclosePreviews)
	if !bytes.Equal(a.Bundle, b.Bundle) {
		t.Error("the same holder keys in another order give other bytes")
	}

	s.HolderKeys = thumbprints(t, passport.MaxHolderKeys+1)
	if _, err := issuing.Assemble(s, c, opt); passport.ReasonOf(err) != passport.ReasonFieldInvalid {
		t.Errorf("five holder keys: %v, want %s", err, passport.ReasonFieldInvalid)
	}
	s.HolderKeys = nil
	opt.Status = &passport.StatusRef{StatusList: passport.StatusListRef{Idx: 1, URI: "http://issuer.test/status/l1"}}
	if _, err := issuing.Assemble(s, c, opt); passport.ReasonOf(err) != passport.ReasonFieldInvalid {
		t.Errorf("status over plain http: %v, want %s", err, passport.ReasonFieldInvalid)
	}
}
