package verifier_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// vectorCase returns the vector named name.
func vectorCase(t testing.TB, cases []vectors.Case, name string) vectors.Case {
	t.Helper()
	for _, c := range cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no vector %s", name)
	return vectors.Case{}
}

// TestPresentationPolicy pins that the presentation policy is explicit and
// checked before the presentation is read: no audience, no nonce or a
// maximum age out of range is an error, as is the zero subject Policy,
// whatever the input.
func TestPresentationPolicy(t *testing.T) {
	v, cases := vectorVerifier(t)
	c := vectorCase(t, cases, "valid_presentation_eddsa")
	ctx := context.Background()
	good := verifier.ForPresentation(c.PresentedTo.Audience, c.PresentedTo.Nonce)
	tests := []struct {
		name   string
		policy verifier.Policy
		pp     verifier.PresentationPolicy
		err    error
	}{
		{"zero presentation policy", verifier.AnySubject(), verifier.PresentationPolicy{}, verifier.ErrPresentationPolicy},
		{"no audience", verifier.AnySubject(), verifier.ForPresentation("", "n"), verifier.ErrPresentationPolicy},
		{"no nonce", verifier.AnySubject(), verifier.ForPresentation("https://rp.example", ""), verifier.ErrPresentationPolicy},
		{"negative maximum age", verifier.AnySubject(), good.WithMaxAge(-time.Second), verifier.ErrPresentationPolicy},
		{"maximum age over a day", verifier.AnySubject(), good.WithMaxAge(verifier.MaxMaxAge + time.Second), verifier.ErrPresentationPolicy},
		{"zero subject policy", verifier.Policy{}, good, verifier.ErrPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, in := range [][]byte{nil, c.Presentation} {
				res, err := v.VerifyPresentation(ctx, in, tt.policy.At(c.At), tt.pp)
				if !errors.Is(err, tt.err) || res != nil {
					t.Fatalf("err %v, result %v; want %v", err, res, tt.err)
				}
			}
		})
	}
	// A maximum age of zero is a choice: the key binding, 30 s old, is
	// then within the skew alone.
	res, err := v.VerifyPresentation(ctx, c.Presentation, verifier.AnySubject().At(c.At), good.WithMaxAge(0))
	if err != nil || !res.Verified {
		t.Fatalf("maximum age 0: %v %+v", err, res)
	}
}

// TestVerifyPresentationResult checks what a verified presentation reports
// beyond a bundle, and that a bundle is not a presentation nor a
// presentation a bundle.
func TestVerifyPresentationResult(t *testing.T) {
	v, cases := vectorVerifier(t)
	c := vectorCase(t, cases, "valid_presentation_es256")
	ctx := context.Background()
	pp := verifier.ForPresentation(c.PresentedTo.Audience, c.PresentedTo.Nonce)
	res, err := v.VerifyPresentation(ctx, c.Presentation, verifier.ForSubject("agt_7Qm2xKp9Lr4Vt8Wn").At(c.At), pp)
	if err != nil || !res.Verified {
		t.Fatalf("%v %+v", err, res)
	}
	p, err := res.Decode()
	if err != nil || p.Cnf == nil || !slices.Contains(p.Cnf.JKTs, res.HolderKey) {
		t.Fatalf("holder key %q not in the passport's cnf: %v", res.HolderKey, err)
	}
	names := make([]verifier.CheckName, len(res.Checks))
	for i, ch := range res.Checks {
		names[i] = ch.Name
	}
	if !slices.Equal(names, verifier.PresentationCheckNames()) {
		t.Errorf("checks %v, want %v", names, verifier.PresentationCheckNames())
	}
	if got := res.Check(verifier.CheckHolderKey); !got.OK || got.Detail != "jkt "+res.HolderKey {
		t.Errorf("holder_key check %+v", got)
	}

	// A bundle handed to VerifyPresentation lacks the presentation's
	// members; a presentation handed to Verify, the bundle's.
	bundle := vectorCase(t, cases, "valid_v02_cnf").Bundle
	res, _ = v.VerifyPresentation(ctx, bundle, verifier.AnySubject().At(c.At), pp)
	if res.Verified || res.Reason != passport.ReasonPresentationMalformed {
		t.Errorf("a bundle as a presentation: %s", res.Reason)
	}
	res, _ = v.Verify(ctx, c.Presentation, verifier.AnySubject().At(c.At))
	if res.Verified || res.Reason != passport.ReasonBundleMalformed {
		t.Errorf("a presentation as a bundle: %s", res.Reason)
	}
}

// FuzzVerifyPresentation feeds mutated presentations to the verifier. It
// must never panic, never carry a passport or a holder key in an
// unverified result, and report exactly one failed check or none.
func FuzzVerifyPresentation(f *testing.F) {
	v, cases := vectorVerifier(f)
	for _, c := range cases {
		if c.Presentation != nil && len(c.Presentation) < 64<<10 {
			f.Add(c.Presentation)
		}
	}
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	pp := verifier.ForPresentation("https://verifier.example", "n-7Kq2xW9fLp")
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := v.VerifyPresentation(context.Background(), in, verifier.AnySubject().At(at), pp)
		if err != nil {
			t.Fatal(err)
		}
		failed := failedChecks(res)
		switch {
		case res.Verified && (failed != 0 || res.Passport == nil || res.HolderKey == ""):
			t.Fatalf("verified with %d failed checks", failed)
		case !res.Verified && (failed != 1 || res.Passport != nil || res.Subject != "" || res.HolderKey != ""):
			t.Fatalf("unverified result with %d failed checks or passport content", failed)
		case len(res.Checks) != len(verifier.PresentationCheckNames()):
			t.Fatalf("%d checks reported", len(res.Checks))
		}
	})
}
