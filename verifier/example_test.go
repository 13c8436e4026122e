package verifier_test

import (
	"context"
	"fmt"

	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// A third party verifies a bundle offline against the issuer's trust file,
// saying whose passport it expects, and reads the verdict as data.
func ExampleVerifier_Verify() {
	trustJSON, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		panic(err)
	}
	trust, err := verifier.ParseTrust(trustJSON)
	if err != nil {
		panic(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		panic(err)
	}
	var c vectors.Case
	for _, x := range cases {
		if x.Name == "valid_eddsa" {
			c = x
		}
	}
	res, err := v.Verify(context.Background(), c.Bundle, verifier.ForSubject("agt_7Qm2xKp9Lr4Vt8Wn").At(c.At))
	if err != nil {
		panic(err) // only a cancelled context or an invalid Policy
	}
	fmt.Println(res.Verified, res.Reason)
	subject := res.Check(verifier.CheckSubject)
	fmt.Println(subject.Name, subject.OK, subject.Reason)

	// Accepting any subject is a choice the result records.
	res, _ = v.Verify(context.Background(), c.Bundle, verifier.AnySubject().At(c.At))
	subject = res.Check(verifier.CheckSubject)
	fmt.Println(res.Verified, res.Subject, subject.Name, subject.OK, subject.Reason)
	// Output:
	// true ok
	// subject true ok
	// true agt_7Qm2xKp9Lr4Vt8Wn subject false not_required
}

// A relying party that fetched the issuer's status list token earlier, from
// the uri the passport names, checks that the passport still stands. The
// token is verified once, against the same trust file, and serves every
// verification after it; without one the status check reports
// not_checked.
func ExampleVerifier_ReadStatusList() {
	v, cases := exampleVerifier()
	for _, c := range cases {
		switch c.Name {
		case "valid_status_list", "status_revoked_fail":
			list := v.ReadStatusList(c.StatusList)
			res, _ := v.Verify(context.Background(), c.Bundle, verifier.ForSubject("agt_7Qm2xKp9Lr4Vt8Wn").At(c.At).WithStatusList(list))
			fmt.Println(res.Verified, res.Check(verifier.CheckStatus).Reason)

			res, _ = v.Verify(context.Background(), c.Bundle, verifier.ForSubject("agt_7Qm2xKp9Lr4Vt8Wn").At(c.At))
			fmt.Println(res.Verified, res.Check(verifier.CheckStatus).Reason)
		}
	}
	// Output:
	// false revoked
	// true not_checked
	// true ok
	// true not_checked
}

// A relying party handed an agent its identifier and a fresh nonce; the
// agent answered with a presentation of its passport. The relying party
// checks the bundle and the key binding in one call, and a presentation
// replayed to it, or made for another party, fails with its reason.
func ExampleVerifier_VerifyPresentation() {
	v, cases := exampleVerifier()
	for _, c := range cases {
		if c.Name != "valid_presentation_eddsa" {
			continue
		}
		policy := verifier.ForSubject("agt_7Qm2xKp9Lr4Vt8Wn").At(c.At)
		res, err := v.VerifyPresentation(context.Background(), c.Presentation, policy,
			verifier.ForPresentation("https://verifier.example", "n-7Kq2xW9fLp"))
		if err != nil {
			panic(err) // only a cancelled context or an invalid policy
		}
		fmt.Println(res.Verified, res.Reason, res.HolderKey != "")

		// The same presentation, checked against a later nonce.
		res, _ = v.VerifyPresentation(context.Background(), c.Presentation, policy,
			verifier.ForPresentation("https://verifier.example", "n-laterNonce"))
		fmt.Println(res.Verified, res.Reason, res.Check(verifier.CheckNonce).Reason)
	}
	// Output:
	// true ok true
	// false kb_nonce_mismatch kb_nonce_mismatch
}

// exampleVerifier returns a verifier of the vectors' trust file, as
// ExampleVerifier_Verify builds it, and the vectors.
func exampleVerifier() (*verifier.Verifier, []vectors.Case) {
	trustJSON, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		panic(err)
	}
	trust, err := verifier.ParseTrust(trustJSON)
	if err != nil {
		panic(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		panic(err)
	}
	return v, cases
}
