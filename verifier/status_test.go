package verifier_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// statusFixture returns a verifier of the vectors' trust file and the
// vector named name.
func statusFixture(t testing.TB, name string) (*verifier.Verifier, vectors.Case) {
	t.Helper()
	v, cases := vectorVerifier(t)
	for _, c := range cases {
		if c.Name == name {
			return v, c
		}
	}
	t.Fatalf("no vector %s", name)
	return nil, vectors.Case{}
}

// TestStatusList pins what the vectors cannot carry: a token over the size
// bound, a list read by another Verifier, Err, a list without a passport
// subject choice, and one list read once and used by verifications at the
// same time.
func TestStatusList(t *testing.T) {
	v, c := statusFixture(t, "valid_status_list")
	ctx := context.Background()
	list := v.ReadStatusList(c.StatusList)
	if err := list.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}

	t.Run("too large", func(t *testing.T) {
		big := v.ReadStatusList(bytes.Repeat([]byte{'A'}, verifier.MaxStatusListSize+1))
		if passport.ReasonOf(big.Err()) != passport.ReasonStatusListInvalid || !strings.Contains(big.Err().Error(), "limit") {
			t.Fatalf("Err: %v", big.Err())
		}
		res, err := v.Verify(ctx, c.Bundle, verifier.AnySubject().At(c.At).WithStatusList(big))
		if err != nil || res.Verified || res.Reason != passport.ReasonStatusListInvalid {
			t.Fatalf("%v %+v", err, res)
		}
	})
	t.Run("another verifier's list", func(t *testing.T) {
		other, _ := statusFixture(t, "valid_status_list")
		if _, err := other.Verify(ctx, c.Bundle, verifier.AnySubject().At(c.At).WithStatusList(list)); !errors.Is(err, verifier.ErrStatusList) {
			t.Fatalf("err %v, want ErrStatusList", err)
		}
	})
	t.Run("policy still needs a subject choice", func(t *testing.T) {
		if _, err := v.Verify(ctx, c.Bundle, verifier.Policy{}.WithStatusList(list)); !errors.Is(err, verifier.ErrPolicy) {
			t.Fatalf("err %v, want ErrPolicy", err)
		}
	})
	t.Run("for a subject", func(t *testing.T) {
		res, err := v.Verify(ctx, c.Bundle, verifier.ForSubject("agt_7Qm2xKp9Lr4Vt8Wn").At(c.At).WithStatusList(list))
		if err != nil || !res.Verified {
			t.Fatalf("%v %+v", err, res)
		}
		if s := res.Check(verifier.CheckStatus); !s.OK || s.Reason != passport.ReasonOK || !strings.HasPrefix(s.Detail, "valid at index 37") {
			t.Errorf("status check %+v", s)
		}
	})
	t.Run("without a list", func(t *testing.T) {
		res, err := v.Verify(ctx, c.Bundle, verifier.AnySubject().At(c.At))
		if err != nil || !res.Verified {
			t.Fatalf("%v %+v", err, res)
		}
		if s := res.Check(verifier.CheckStatus); s.OK || s.Reason != passport.ReasonNotChecked || !s.Skipped() {
			t.Errorf("status check %+v, want not_checked", s)
		}
	})
	t.Run("shared", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 20 {
					res, err := v.Verify(ctx, c.Bundle, verifier.AnySubject().At(c.At).WithStatusList(list))
					if err != nil || !res.Verified {
						t.Errorf("%v %+v", err, res)
						return
					}
				}
			})
		}
		wg.Wait()
	})
}

// FuzzStatusList feeds mutated status list tokens to the status check of
// a passport that names a list: as they are, or, with resign, mutated
// payloads signed again by the vectors' trusted key, so that the payload
// parser, the lst decoder and the check itself are reached. It must never
// panic; a token that Err refuses must fail the status check as
// status_list_invalid, and the bundle verifies exactly when the status
// check passes.
func FuzzStatusList(f *testing.F) {
	v, c := statusFixture(f, "valid_status_list")
	seed := sha256.Sum256([]byte("passportkit vectors: ed25519 key"))
	key, err := passport.NewPrivateKey(passport.EdDSA, seed[:])
	if err != nil {
		f.Fatal(err)
	}
	signer := passport.NewSigner(key)
	_, cases := vectorVerifier(f)
	for _, x := range cases {
		if x.StatusList == nil {
			continue
		}
		f.Add(x.StatusList, false)
		payload, err := base64.RawURLEncoding.DecodeString(string(bytes.Split(x.StatusList, []byte("."))[1]))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(payload, true)
	}
	f.Fuzz(func(t *testing.T, in []byte, resign bool) {
		token := in
		if resign {
			jws, err := signer.SignCompact(in, statuslist.Typ)
			if err != nil {
				t.Fatal(err)
			}
			token = []byte(jws)
		}
		list := v.ReadStatusList(token)
		res, err := v.Verify(context.Background(), c.Bundle, verifier.AnySubject().At(c.At).WithStatusList(list))
		if err != nil {
			t.Fatal(err)
		}
		s := res.Check(verifier.CheckStatus)
		switch {
		case list.Err() != nil && (s.Reason != passport.ReasonStatusListInvalid || passport.ReasonOf(list.Err()) != passport.ReasonStatusListInvalid):
			t.Fatalf("a token Err refuses (%v) gives the status check %+v", list.Err(), s)
		case res.Verified != s.OK:
			t.Fatalf("verified %v with the status check %+v", res.Verified, s)
		case !res.Verified && (res.Reason != s.Reason || res.Passport != nil):
			t.Fatalf("an unverified result with reason %s, status check %+v", res.Reason, s)
		}
	})
}
