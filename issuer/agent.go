package issuer

import (
	"context"
	"slices"
	"strings"
)

// Scope is a permission carried by an API key.
type Scope string

// The scopes.
const (
	ScopePublish  Scope = "publish"  // publish memories
	ScopeSearch   Scope = "search"   // retrieve and consult memories, read validations and reputation
	ScopeFeedback Scope = "feedback" // validate memories and consultations
	ScopeAdmin    Scope = "admin"    // moderate memories
)

// AllScopes lists every scope in its canonical order.
var AllScopes = []Scope{ScopePublish, ScopeSearch, ScopeFeedback, ScopeAdmin}

// DefaultScopes are granted to a new agent's key unless others are asked for.
var DefaultScopes = []Scope{ScopePublish, ScopeSearch, ScopeFeedback}

// ParseScopes reads a comma- or space-separated list of scope names. It
// refuses unknown names and an empty list, and returns the scopes in
// canonical order without duplicates.
func ParseScopes(s string) ([]Scope, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	if len(fields) == 0 {
		return nil, Errorf(CodeInvalid, "at least one scope is required")
	}
	var out []Scope
	for _, f := range fields {
		if !slices.Contains(AllScopes, Scope(f)) {
			return nil, Errorf(CodeInvalid, "unknown scope %q (want publish, search, feedback or admin)", truncate(f, 40))
		}
	}
	for _, sc := range AllScopes {
		if slices.Contains(fields, string(sc)) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// FormatScopes joins scopes with single spaces, the stored form.
func FormatScopes(scopes []Scope) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, " ")
}

// AgentStatus says whether an agent may act.
type AgentStatus string

// The agent statuses.
const (
	AgentActive    AgentStatus = "active"
	AgentSuspended AgentStatus = "suspended"
)

// ParseAgentStatus checks an agent status name.
func ParseAgentStatus(s string) (AgentStatus, error) {
	switch st := AgentStatus(s); st {
	case AgentActive, AgentSuspended:
		return st, nil
	}
	return "", Errorf(CodeInvalid, "unknown agent status %q (want active or suspended)", truncate(s, 40))
}

// Visibility says who may see an agent's public profile. Only public agents
// have one; the others answer 404.
type Visibility string

// The visibilities.
const (
	VisibilityPublic   Visibility = "public"
	VisibilityUnlisted Visibility = "unlisted"
	VisibilityPrivate  Visibility = "private"
)

// ParseVisibility checks a visibility name.
func ParseVisibility(s string) (Visibility, error) {
	switch v := Visibility(s); v {
	case VisibilityPublic, VisibilityUnlisted, VisibilityPrivate:
		return v, nil
	}
	return "", Errorf(CodeInvalid, "unknown visibility %q (want public, unlisted or private)", truncate(s, 40))
}

// Principal is the agent an API key authenticated, as resolved by the
// issuer for one request. Everything that decides who acts comes from here,
// never from a request body.
type Principal struct {
	// Key is the agent's internal database key. It is never serialised.
	Key     int64
	AgentID AgentID
	Status  AgentStatus
	Scopes  []Scope
}

// Require checks that p is active and holds scope.
func (p Principal) Require(scope Scope) error {
	if p.Status != AgentActive {
		return Errorf(CodeAgentInactive, "agent %s is %s", p.AgentID, p.Status)
	}
	if !slices.Contains(p.Scopes, scope) {
		return Errorf(CodeInsufficientScope, "this API key lacks the %s scope", scope)
	}
	return nil
}

// Transport is the interface a request arrived through. History records it.
type Transport string

// The transports.
const (
	TransportHTTP Transport = "http"
	TransportMCP  Transport = "mcp"
)

type principalKey struct{}

// NewContext returns ctx carrying the authenticated principal. Transports
// set it once authentication succeeds.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal ctx carries, if any.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
