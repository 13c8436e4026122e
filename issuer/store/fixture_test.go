package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/reputation"
)

// fixture drives one store through the public API.
type fixture struct {
	t   *testing.T
	db  *store.DB
	ctx context.Context
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	return &fixture{t: t, db: db, ctx: context.Background()}
}

// agent creates an agent with the default scopes (or those given) and
// returns its principal.
func (f *fixture) agent(name string, scopes ...issuer.Scope) issuer.Principal {
	f.t.Helper()
	return f.agentWith(store.NewAgent{Name: name, Scopes: scopes})
}

func (f *fixture) agentWith(in store.NewAgent) issuer.Principal {
	f.t.Helper()
	a, err := f.db.CreateAgent(f.ctx, in)
	if err != nil {
		f.t.Fatalf("create agent %s: %v", in.Name, err)
	}
	p, err := f.db.Authenticate(f.ctx, a.Key)
	if err != nil {
		f.t.Fatalf("authenticate %s: %v", in.Name, err)
	}
	return p
}

func (f *fixture) publish(author issuer.Principal, category string) issuer.MemoryID {
	f.t.Helper()
	m, err := f.db.Publish(f.ctx, author, issuer.Publication{
		Category: category, Domain: reputation.NormalizeDomain(category), Title: "A finding",
		Content: "Some knowledge.", AppliesTo: []string{}, Confidence: 500,
	})
	if err != nil {
		f.t.Fatalf("publish: %v", err)
	}
	return m.ID
}

func (f *fixture) retrieve(p issuer.Principal, mem issuer.MemoryID) issuer.Memory {
	f.t.Helper()
	m, err := f.db.Retrieve(f.ctx, p, mem)
	if err != nil {
		f.t.Fatalf("retrieve: %v", err)
	}
	return m
}

// validate submits a direct validation over HTTP and fails on error.
func (f *fixture) validate(p issuer.Principal, mem issuer.MemoryID, t reputation.Type, reason string) issuer.FeedbackResult {
	f.t.Helper()
	res, _, err := f.db.SubmitFeedback(f.ctx, p, mem, issuer.Feedback{Type: t, Reason: reason}, issuer.TransportHTTP)
	if err != nil {
		f.t.Fatalf("validate %s as %s: %v", mem, t, err)
	}
	return res
}

// consumeAndValidate retrieves then validates.
func (f *fixture) consumeAndValidate(p issuer.Principal, mem issuer.MemoryID, t reputation.Type) issuer.FeedbackResult {
	f.t.Helper()
	f.retrieve(p, mem)
	return f.validate(p, mem, t, "")
}

func (f *fixture) profile(p issuer.Principal) issuer.Profile {
	f.t.Helper()
	pr, err := f.db.Profile(f.ctx, p)
	if err != nil {
		f.t.Fatalf("profile: %v", err)
	}
	return pr
}

func (f *fixture) domain(p issuer.Principal, domain string) issuer.DomainReputation {
	f.t.Helper()
	for _, d := range f.profile(p).DomainReputations {
		if d.Domain == domain {
			return d
		}
	}
	return issuer.DomainReputation{Domain: domain}
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code issuer.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	if got := issuer.ErrorCode(err); got != code {
		t.Fatalf("got %v (code %s), want %s", err, got, code)
	}
	var e *issuer.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *issuer.Error", err)
	}
}
