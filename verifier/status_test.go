package verifier_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

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

// BenchmarkStatusCheck measures the status check of one passport against a
// list of 2^20 two-bit entries, 1% of them revoked at random: reading the
// token once (verifying it and decoding the list), and then the check
// itself, the difference between a verification of a 2 KiB bundle with
// that list and one without.
func BenchmarkStatusCheck(b *testing.B) {
	f := newBenchFixture(b)
	const entries = 1 << 20
	rng := rand.New(rand.NewPCG(1, 2))
	list, err := statuslist.New(2, entries)
	if err != nil {
		b.Fatal(err)
	}
	for range entries / 100 {
		if err := list.Set(rng.IntN(entries), statuslist.Invalid); err != nil {
			b.Fatal(err)
		}
	}
	idx := rng.IntN(entries)
	if err := list.Set(idx, statuslist.Valid); err != nil {
		b.Fatal(err)
	}
	lst, err := list.Encode()
	if err != nil {
		b.Fatal(err)
	}
	const uri = "https://issuer.example/status/bench"
	payload, err := statuslist.MarshalPayload(statuslist.Payload{Exp: f.at.Add(time.Hour).Unix(), Iat: f.at.Add(-time.Minute).Unix(),
		Iss: "https://issuer.example", StatusList: statuslist.Encoded{Bits: 2, Lst: lst}, Sub: uri, TTL: 300})
	if err != nil {
		b.Fatal(err)
	}
	token, err := passport.NewSigner(f.key).SignCompact(payload, statuslist.Typ)
	if err != nil {
		b.Fatal(err)
	}
	p := benchPassport(2, 2)
	p.Status = &passport.StatusRef{StatusList: passport.StatusListRef{Idx: idx, URI: uri}}
	bundle, err := passport.NewSigner(f.key).Sign(p, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	read := f.v.ReadStatusList([]byte(token))
	if err := read.Err(); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(token)))
		for b.Loop() {
			if f.v.ReadStatusList([]byte(token)).Err() != nil {
				b.Fatal("the token does not verify")
			}
		}
		b.ReportMetric(float64(len(token)), "token-bytes")
	})
	without := verifier.AnySubject().At(f.at)
	with := without.WithStatusList(read)
	for policy, reason := range map[*verifier.Policy]passport.Reason{&without: passport.ReasonNotChecked, &with: passport.ReasonOK} {
		res, err := f.v.Verify(context.Background(), bundle, *policy)
		if err != nil || !res.Verified || res.Check(verifier.CheckStatus).Reason != reason {
			b.Fatalf("%v %+v", err, res)
		}
	}
	// The two verifications interleaved, in thread CPU time, as
	// BenchmarkVerifyVsBaseline measures, so that the difference holds on
	// a busy machine.
	b.Run("check", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var bare, checked time.Duration
		for b.Loop() {
			t0 := clock()
			f.v.Verify(context.Background(), bundle, without)
			t1 := clock()
			f.v.Verify(context.Background(), bundle, with)
			t2 := clock()
			bare += t1 - t0
			checked += t2 - t1
		}
		n := float64(b.N)
		b.ReportMetric(float64(bare.Nanoseconds())/n, "ns-verify-without-list")
		b.ReportMetric(float64(checked.Nanoseconds())/n, "ns-verify-with-list")
		b.ReportMetric(float64((checked-bare).Nanoseconds())/n, "ns-status-check")
	})
}
