package vectors

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// allGenerators returns every case's generator: the bundles of
// passportVersion 0.1, then those of 0.2, then the status checks, then the
// presentations.
func allGenerators() []generator {
	return slices.Concat(generators, skillGenerators, formGenerators, claimsGenerators, statusGenerators, presentationGenerators)
}

// verifier returns a verifier of the vectors' trust file, as a third party
// reads it.
func (f *fixture) verifier() (*verifier.Verifier, error) {
	b, err := f.trust()
	if err != nil {
		return nil, err
	}
	t, err := verifier.ParseTrust(b)
	if err != nil {
		return nil, err
	}
	return verifier.New(t)
}

// outcomes verifies c as README.md says a verifier runs a case and returns
// the outcome of every check, after checking that the verdict, the reason
// and the failing check are the ones the case states.
func outcomes(v *verifier.Verifier, c *Case) ([]CheckOutcome, error) {
	policy := verifier.AnySubject().At(c.At)
	if c.StatusList != nil {
		policy = policy.WithStatusList(v.ReadStatusList(c.StatusList))
	}
	res, err := c.Run(context.Background(), v, policy)
	if err != nil {
		return nil, err
	}
	if res.Verified != c.Verified || string(res.Reason) != c.Reason {
		return nil, fmt.Errorf("the verifier says %v %s; the case states %v %s", res.Verified, res.Reason, c.Verified, c.Reason)
	}
	out := make([]CheckOutcome, 0, len(res.Checks))
	for _, ch := range res.Checks {
		if !ch.OK && !ch.Skipped() && ch.Reason != passport.ReasonNotReached && string(ch.Name) != c.Check {
			return nil, fmt.Errorf("check %s fails; the case states %q", ch.Name, c.Check)
		}
		out = append(out, CheckOutcome{Name: string(ch.Name), Reason: string(ch.Reason)})
	}
	return out, nil
}

// Run verifies the case's input under policy, as README.md says: a
// presentation with VerifyPresentation and the case's presentation policy,
// a bundle with Verify.
func (c *Case) Run(ctx context.Context, v *verifier.Verifier, policy verifier.Policy) (*verifier.Result, error) {
	if p := c.PresentedTo; p != nil {
		pp := verifier.ForPresentation(p.Audience, p.Nonce).WithMaxAge(time.Duration(p.MaxAge) * time.Second)
		return v.VerifyPresentation(ctx, c.Presentation, policy, pp)
	}
	return v.Verify(ctx, c.Bundle, policy)
}

// oneLineCheck matches a check outcome as json.MarshalIndent spreads it.
var oneLineCheck = regexp.MustCompile(`\{\n\s+"name": ("[a-z_]+"),\n\s+"reason": ("[a-z_0-9]+")\n\s+\}`)

// caseJSON returns case.json for c: indented, one check per line.
func caseJSON(c *Case) []byte {
	meta, err := json.MarshalIndent(caseFile{Description: c.Description, At: passport.NewTime(c.At).String(),
		Verified: c.Verified, Reason: c.Reason, Check: c.Check, Checks: c.Checks, PresentedTo: c.PresentedTo}, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(oneLineCheck.ReplaceAll(meta, []byte(`{"name": $1, "reason": $2}`)), '\n')
}
