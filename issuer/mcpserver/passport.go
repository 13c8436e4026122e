package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// PassportIssuer issues public passports. *service.Passports implements it.
type PassportIssuer interface {
	// Issue returns the signed passport of id with the records d
	// discloses; not_found for an agent without a public profile, and
	// body_too_large when the bundle would pass passport.MaxBundleSize.
	Issue(ctx context.Context, id issuer.AgentID, d issuing.Disclosure) (*issuing.Issued, error)
}

// TrustPublisher gives the issuer's SPEC §10 trust file, the bytes
// /.well-known/passport-trust.json serves. *keyring.Keyring implements it.
type TrustPublisher interface {
	TrustFile(ctx context.Context) ([]byte, error)
}

// MaxVerifyMessage bounds a tools/call message of verify_passport, after
// decompression: room for a presentation of passport.MaxPresentationSize
// given as a JSON string, in which escaping every quotation mark and
// backslash at most doubles it, and 64 KiB for the envelope and the other
// arguments.
const MaxVerifyMessage = 2*passport.MaxPresentationSize + 64<<10

// addPassportTools registers the passport tools whose dependency is
// configured.
func addPassportTools(t *tools) {
	if t.cfg.passports != nil {
		addTool(t, anyone, &mcp.Tool{
			Name:  "get_agent_passport",
			Title: "An agent's signed passport",
			Description: "An agent's signed passport bundle: its skill passports and the evidence records disclose names " +
				"(previews, the default: the records behind the source previews; all; none). The text content is the bundle's " +
				"exact bytes: pass it as the bundle of verify_passport, or save it for `passport verify`. An agent without a " +
				"public profile is not_found; a bundle over 512 KiB (disclose all) is body_too_large.",
			OutputSchema: bundleSchema(),
			Annotations:  reads(),
		}, t.agentPassport)
	}
	if t.cfg.trust != nil {
		t.bounds["verify_passport"] = MaxVerifyMessage
		addTool(t, anyone, &mcp.Tool{
			Name:  "verify_passport",
			Title: "Verify a passport or a presentation",
			Description: "Verify a passport bundle, or a presentation of one, against this issuer's published trust file, as " +
				"`passport verify --json` does: every check in order with its status and reason code, then the verdict. Say whose " +
				"passport you expect: subject (agt_…) or anySubject true. Give the bundle, or the presentation with aud (your own " +
				"identifier) and nonce (the one you handed the holder), as a string holding its exact bytes (best), or as an " +
				"object, which is verified in its canonical form. A bundle that does not verify is a result with verified " +
				"false and its reason, not an error; act only on verified true, and treat key_unknown as indeterminate. A bundle " +
				"proves what the issuer said about an agent; only a presentation proves that the agent itself presents it.",
			InputSchema:  verifySchema(),
			OutputSchema: outputSchema[verifier.Result]("verify_passport"),
			Annotations:  reads(),
		}, t.verifyPassport)
	}
}

// PassportInput is the input of get_agent_passport.
type PassportInput struct {
	PublicID string  `json:"publicId" jsonschema:"the agent (agt_…)"`
	Disclose *string `json:"disclose,omitempty" jsonschema:"the evidence records the bundle discloses: previews (default), all or none"`
}

func (t *tools) agentPassport(ctx context.Context, _ issuer.Principal, in PassportInput) (json.RawMessage, error) {
	id, err := issuer.ParseAgentID(in.PublicID)
	if err != nil {
		return nil, err
	}
	var d string
	if in.Disclose != nil {
		d = *in.Disclose
	}
	disclosure, err := issuing.ParseDisclosure(d)
	if err != nil {
		return nil, err
	}
	is, err := t.cfg.passports.Issue(ctx, id, disclosure)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(is.Bundle), nil
}

// VerifyInput is the input of verify_passport: a bundle, or a presentation
// with its audience and nonce.
type VerifyInput struct {
	// Bundle is a JSON string holding the bundle's bytes, or the bundle
	// as a JSON object.
	Bundle json.RawMessage `json:"bundle,omitempty"`
	// Presentation is a presentation (SPEC.md §11.6), given as Bundle is.
	Presentation json.RawMessage `json:"presentation,omitempty"`
	Aud          *string         `json:"aud,omitempty" jsonschema:"with a presentation: your own identifier, which it must be made for"`
	Nonce        *string         `json:"nonce,omitempty" jsonschema:"with a presentation: the nonce you handed the holder"`
	MaxAge       *int64          `json:"maxAge,omitempty" jsonschema:"with a presentation: how old its key binding may be, in seconds beyond the clock skew (default 300, at most 86400)"`
	Subject      *string         `json:"subject,omitempty" jsonschema:"the agent the passport must describe (agt_…); give this or anySubject"`
	AnySubject   *bool           `json:"anySubject,omitempty" jsonschema:"true to accept a passport about any agent: the subject check then reports not_required"`
	At           *string         `json:"at,omitempty" jsonschema:"verify as of this RFC 3339 time instead of now"`
}

// verifySchema is the input schema of verify_passport: the one inferred
// from [VerifyInput], with bundle and presentation each a string or an
// object.
func verifySchema() *jsonschema.Schema {
	s := schemaFor[VerifyInput]("verify_passport")
	s.Properties["bundle"] = &jsonschema.Schema{Types: []string{"string", "object"},
		Description: "the passport bundle: a string holding its exact bytes (as get_agent_passport's text gives it), or the bundle object; give this or presentation"}
	s.Properties["presentation"] = &jsonschema.Schema{Types: []string{"string", "object"},
		Description: "a presentation of a bundle by its holder (passport present): a string holding its exact bytes, or the presentation object; give this, with aud and nonce, or bundle"}
	return s
}

func (t *tools) verifyPassport(ctx context.Context, _ issuer.Principal, in VerifyInput) (json.RawMessage, error) {
	policy, err := verifyPolicy(in)
	if err != nil {
		return nil, err
	}
	pp, err := presentationPolicy(in)
	if err != nil {
		return nil, err
	}
	doc, err := verifiedInput(in)
	if err != nil {
		return nil, err
	}
	file, err := t.cfg.trust.TrustFile(ctx)
	if err != nil {
		return nil, err
	}
	v, err := t.verifiers.For(file)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: the published trust file: %w", err)
	}
	var res *verifier.Result
	if pp != nil {
		res, err = v.VerifyPresentation(ctx, doc, policy, *pp)
	} else {
		res, err = v.Verify(ctx, doc, policy)
	}
	if err != nil {
		return nil, err
	}
	return resultJSON(res)
}

// presentationPolicy reads aud, nonce and maxAge, which go with a
// presentation and only with one: a presentation needs aud and nonce
// (SPEC.md §11.6). It returns nil for a bundle.
func presentationPolicy(in VerifyInput) (*verifier.PresentationPolicy, error) {
	aud, nonce := deref(in.Aud), deref(in.Nonce)
	switch {
	case len(in.Presentation) == 0 && (in.Aud != nil || in.Nonce != nil || in.MaxAge != nil):
		return nil, issuer.Errorf(issuer.CodeInvalid, "aud, nonce and maxAge go with a presentation; a bundle has none")
	case len(in.Presentation) == 0:
		return nil, nil
	case aud == "" || nonce == "":
		return nil, issuer.Errorf(issuer.CodeInvalid, "a presentation needs aud (your own identifier) and nonce (the one you handed the holder)")
	}
	pp := verifier.ForPresentation(aud, nonce)
	if in.MaxAge != nil {
		if *in.MaxAge < 0 || *in.MaxAge > int64(verifier.MaxMaxAge/time.Second) {
			return nil, issuer.Errorf(issuer.CodeInvalid, "maxAge must be a whole number of seconds from 0 to 86400")
		}
		pp = pp.WithMaxAge(time.Duration(*in.MaxAge) * time.Second)
	}
	return &pp, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// verifiedInput returns the bytes to verify: the bundle's, or the
// presentation's, exactly one of which must be given.
func verifiedInput(in VerifyInput) ([]byte, error) {
	switch {
	case len(in.Bundle) > 0 && len(in.Presentation) > 0:
		return nil, issuer.Errorf(issuer.CodeInvalid, "give bundle or presentation, not both")
	case len(in.Presentation) > 0:
		return documentBytes("presentation", in.Presentation, passport.MaxPresentationSize, "§11.6")
	}
	return bundleBytes(in.Bundle)
}

// verifyPolicy reads the subject choice and the time of a verification,
// as `passport verify` reads --subject, --any-subject and --at: exactly one
// choice is required (SPEC.md §11.1).
func verifyPolicy(in VerifyInput) (verifier.Policy, error) {
	var policy verifier.Policy
	subject := in.Subject != nil && *in.Subject != ""
	anySubject := in.AnySubject != nil && *in.AnySubject
	switch {
	case subject && anySubject:
		return policy, issuer.Errorf(issuer.CodeInvalid, "give subject or anySubject, not both")
	case subject:
		id, err := issuer.ParseAgentID(*in.Subject)
		if err != nil {
			return policy, issuer.Errorf(issuer.CodeInvalid, "subject: %s", issuer.ErrorMessage(err))
		}
		policy = verifier.ForSubject(string(id))
	case anySubject:
		policy = verifier.AnySubject()
	default:
		return policy, issuer.Errorf(issuer.CodeInvalid, "say whose passport you expect: subject (agt_…), or anySubject true to accept any")
	}
	if in.At != nil {
		at, err := time.Parse(time.RFC3339, *in.At)
		if err != nil {
			return policy, issuer.Errorf(issuer.CodeInvalid, "at must be an RFC 3339 time, such as 2026-01-02T15:04:05Z")
		}
		policy = policy.At(at)
	}
	return policy, nil
}

// bundleBytes returns the bundle to verify, as documentBytes reads it.
func bundleBytes(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return nil, issuer.Errorf(issuer.CodeInvalid, "bundle is required: the passport bundle, as a string holding its bytes or as an object (or give a presentation)")
	}
	return documentBytes("bundle", raw, passport.MaxBundleSize, "§9")
}

// documentBytes returns the bytes of the argument name to verify: a
// string's content, or an object's canonical form (its bytes as given when
// it has none, so that the verifier reports why). One over limit bytes is
// body_too_large, citing the SPEC.md section that sets the limit.
func documentBytes(name string, raw json.RawMessage, limit int, section string) ([]byte, error) {
	var b []byte
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("mcpserver: a %s string the strict decoder accepted: %w", name, err)
		}
		b = []byte(s)
	case '{':
		c, err := passport.Canonicalize(raw)
		if err != nil {
			c = bytes.Clone(raw)
		}
		b = c
	default:
		return nil, issuer.Errorf(issuer.CodeJSONWrongType, "%s must be a string or an object", name)
	}
	if len(b) > limit {
		return nil, issuer.Errorf(issuer.CodeTooLarge, "the %s is %d bytes, over the limit of %d (SPEC.md %s)", name, len(b), limit, section)
	}
	return b, nil
}

// resultJSON encodes a verification result as `passport verify --json`
// prints it, without the final newline: characters such as < and & are
// written as themselves.
func resultJSON(res *verifier.Result) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
