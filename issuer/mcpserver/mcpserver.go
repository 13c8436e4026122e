// Package mcpserver serves the issuer's tools over MCP, with the official
// Go SDK and the streamable HTTP transport. It shares the store, and
// therefore every position, rule and idempotency key, with the HTTP API.
//
// # Tools
//
//   - feedback_memory: validate a retrieved memory, with the same fields as
//     the HTTP endpoint plus memoryId;
//   - report_outcome: report what happened when a retrieved memory was used
//     (success, failure, partial or uncertain), with the same fields as
//     POST /api/memories/{id}/outcomes plus memoryId;
//   - get_memory_validations: a memory's validation summary;
//   - get_agent_profile: the calling agent's own profile;
//   - get_agent_reputation: an agent's reputation explanation, paginated;
//   - search_memories: memories matching a text, ranked in the caller's
//     view, with statuses, the contested "why" and counts;
//   - holder_key_nonce and set_holder_keys: a nonce for proofs of
//     possession, and the caller's holder keys replaced, each with its
//     proof, as POST /api/agents/me/holder-keys/nonce and PUT
//     /api/agents/me/holder-keys do (SPEC.md §20);
//   - get_agent_passport (with [WithPassports]): an agent's signed bundle,
//     as GET /api/public/agents/{publicId}/passport serves it; its text
//     content is the bundle's exact bytes;
//   - verify_passport (with [WithTrust]): a bundle verified against the
//     issuer's own trust file, the bytes /.well-known/passport-trust.json
//     serves; the result is the JSON `passport verify --json` prints;
//   - get_agent_skills, get_skill_trust, get_skill_evidence and
//     assess_trust (with [WithTrustAPI]): the answers of the public trust
//     API's routes (SPEC.md §16), as pure reads that write no skill
//     history; an evidence cursor of either transport works on the other;
//   - find_agents (with [WithDiscovery]): registry discovery by skill
//     evidence, the pages of GET /api/public/agents (SPEC.md §17); a
//     cursor of either transport works on the other.
//
// Each tool decodes its raw arguments with [issuer.Decode], the decoder of
// the HTTP API (assess_trust with [issuer.ParseAssessRequest], the parser
// of its route's body; find_agents into [issuer.FindAgentsRequest], which
// refuses an unknown member as its route refuses an unknown parameter),
// and fails with a tool result (isError) holding the problem details of
// the shared vocabulary. A bundle that does not verify is not a failure:
// it is a result whose verdict says why. [Instructions], sent at
// initialize, tell an agent how to read the answers.
//
// # Transport
//
// [Handler] expects the HTTP layer in front of it to have authenticated the
// bearer key and put the principal in the request context
// ([issuer.NewContext]); the HTTP API does so, and answers a request it
// refuses (no valid key, a rate limit) with [Transport.Refuse], in the
// form of the endpoint's own transport errors. The handler reads each
// message itself (gzip-encoded bodies are decoded, and bounded after
// decoding) and answers every transport error with problem details that
// also carry the JSON-RPC error response (SPEC.md §14): malformed JSON is
// -32700, a message that is not a valid request -32600, both with status
// 400; a message over its bound -32600 with status 413; a request for an
// unknown method gets an ordinary JSON-RPC -32601 response. A message may
// take [MaxMessage] bytes, and a tools/call of verify_passport
// [MaxVerifyMessage], so that a whole bundle fits in its arguments.
package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/verifier"
)

// MaxMessage bounds one MCP message, after decompression, except a call
// of a tool with a larger bound (verify_passport: [MaxVerifyMessage]).
const MaxMessage = 128 << 10

// principalExtra is the TokenInfo.Extra key holding the principal.
const principalExtra = "principal"

// Issuer is what the tools need of the issuer: its use cases, as
// issuer/service provides them.
type Issuer interface {
	SubmitFeedback(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, f issuer.Feedback, via issuer.Transport) (issuer.FeedbackResult, bool, error)
	Validations(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (reputation.Summary, error)
	Profile(ctx context.Context, p issuer.Principal) (issuer.Profile, error)
	Reputation(ctx context.Context, p issuer.Principal, id issuer.AgentID, q issuer.ReputationQuery) (issuer.ReputationReport, error)
	ReportOutcome(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, o issuer.OutcomeReport, via issuer.Transport) (issuer.OutcomeResult, bool, error)
	SearchMemories(ctx context.Context, p issuer.Principal, q issuer.SearchQuery) (issuer.SearchPage, error)
	HolderKeyNonce(ctx context.Context, p issuer.Principal) (issuer.HolderKeyNonce, error)
	SetHolderKeys(ctx context.Context, p issuer.Principal, req issuer.HolderKeysRequest) (issuer.HolderKeys, error)
}

// Option configures [Handler]. An option that gives a use case
// ([WithPassports], [WithTrust], [WithTrustAPI], [WithDiscovery]) adds the
// tools over it; without it they are not listed.
type Option func(*config)

type config struct {
	passports   PassportIssuer
	trust       TrustPublisher
	trustAPI    TrustReader
	discovery   AgentFinder
	bodyTimeout time.Duration
}

// WithPassports serves get_agent_passport over p.
func WithPassports(p PassportIssuer) Option { return func(c *config) { c.passports = p } }

// WithTrust serves verify_passport against the trust file t publishes.
func WithTrust(t TrustPublisher) Option { return func(c *config) { c.trust = t } }

// WithBodyTimeout bounds how long a message may take to arrive once the
// request's headers are read; a slower one is answered 408
// (request_timeout). Without it only the HTTP server's deadlines apply.
func WithBodyTimeout(d time.Duration) Option { return func(c *config) { c.bodyTimeout = d } }

// tools is the server's tools under construction and at work.
type tools struct {
	app Issuer
	log *slog.Logger
	cfg config
	// bounds holds the message bound of each tool whose calls may exceed
	// MaxMessage.
	bounds map[string]int
	// verifiers keeps the Verifier of the trust file verify_passport
	// last read.
	verifiers *verifier.Cache
}

// newServer returns the MCP server with the issuer's tools over app.
func newServer(app Issuer, logger *slog.Logger, version string, cfg config) (*mcp.Server, *tools) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	t := &tools{app: app, log: logger, cfg: cfg, bounds: map[string]int{}, verifiers: verifier.NewCache()}
	s := mcp.NewServer(&mcp.Implementation{Name: "passportkit-issuer", Version: version}, &mcp.ServerOptions{Logger: logger, Instructions: Instructions})
	addTool(s, t, &mcp.Tool{
		Name: "feedback_memory",
		Description: "Record your validation of a memory you have retrieved: one of corroborate, contradict, useful, " +
			"not_useful, used_successfully, used_unsuccessfully, with an optional reason; or the legacy verdict " +
			"(confirm, contradict, outdated, irrelevant) with a note. One current position per memory: a new type " +
			"replaces your previous one. Returns the position and the memory's validation summary.",
	}, t.feedbackMemory)
	addTool(s, t, &mcp.Tool{
		Name: "report_outcome",
		Description: "Report what happened when you used a memory you have retrieved: success, failure, partial or " +
			"uncertain, with the task context you used it in. success and failure are your used_successfully or " +
			"used_unsuccessfully position on the memory (one position per memory; a new report replaces it); partial " +
			"and uncertain are recorded without reputation effect. Returns the report and, for success and failure, the position.",
	}, t.reportOutcome)
	addTool(s, t, &mcp.Tool{
		Name:        "get_memory_validations",
		Description: "The validation summary of a memory: its knowledge state and the counts and weights of current positions. It describes recorded evidence, not truth.",
	}, t.memoryValidations)
	addTool(s, t, &mcp.Tool{
		Name:        "get_agent_profile",
		Description: "Your own agent profile: trust level, reputation score, domain reputations, activity and scopes.",
	}, t.agentProfile)
	addTool(s, t, &mcp.Tool{
		Name:        "get_agent_reputation",
		Description: "An agent's reputation explanation: aggregates, domains, policy version and a page of reputation events (newest first). Optional domain filter; limit at most 50; pass nextCursor as cursor for the next page.",
	}, t.agentReputation)
	addSearchTool(s, t)
	addHolderKeyTools(s, t)
	addPassportTools(s, t)
	addTrustTools(s, t)
	addFindAgentsTool(s, t)
	addKnowledgeTools(s, t)
	return s, t
}

// Handler returns the streamable HTTP handler for the tools. It is
// stateless: any replica can answer any request.
func Handler(app Issuer, logger *slog.Logger, version string, opts ...Option) *Transport {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	server, t := newServer(app, logger, version, cfg)
	largest := MaxMessage
	for _, n := range t.bounds {
		largest = max(largest, n)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              t.log,
		MaxRequestBodyBytes: int64(largest),
	})
	verify := func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p, ok := issuer.FromContext(r.Context())
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		scopes := make([]string, len(p.Scopes))
		for i, s := range p.Scopes {
			scopes[i] = string(s)
		}
		return &auth.TokenInfo{Scopes: scopes, UserID: string(p.AgentID), Extra: map[string]any{principalExtra: p}}, nil
	}
	return &Transport{
		next:        auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h),
		bounds:      t.bounds,
		largest:     largest,
		bodyTimeout: cfg.bodyTimeout,
	}
}

// principal returns the authenticated agent of a tool call.
func principal(req *mcp.CallToolRequest) (issuer.Principal, error) {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		if p, ok := req.Extra.TokenInfo.Extra[principalExtra].(issuer.Principal); ok {
			return p, nil
		}
	}
	return issuer.Principal{}, issuer.Errorf(issuer.CodeUnauthorized, "an API key is required as a bearer token")
}

// addTool registers a tool over a use case: h reads the decoded input,
// calls the use case and returns its answer. Adding a tool is a call of
// addTool with the tool's name and description, an input struct and h.
//
// The raw arguments are decoded by [issuer.Decode], the decoder of the
// HTTP API: exact member names, no duplicates (also up to case), no
// unknown members, strict UTF-8 and numbers, within the tool's message
// bound. The input schema is inferred from In unless the tool has one.
func addTool[In any](s *mcp.Server, t *tools, tool *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (any, error)) {
	if tool.InputSchema == nil {
		tool.InputSchema = schemaFor[In](tool.Name)
	}
	limit := cmp.Or(t.bounds[tool.Name], MaxMessage)
	addRawTool(s, t, tool, func(ctx context.Context, req *mcp.CallToolRequest, args []byte) (any, error) {
		var in In
		if err := issuer.Decode(args, limit, &in); err != nil {
			return nil, err
		}
		return h(ctx, req, in)
	})
}

// addRawTool registers a tool whose handler reads the raw arguments
// itself, with the parser of an HTTP route that reads the same JSON
// object as its body (assess_trust: issuer.ParseAssessRequest); tool
// must have its input schema. Absent arguments are {}. The result is the
// handler's value as structured content and as JSON text; a
// json.RawMessage is written as it is, byte for byte. An error is a tool
// result with isError set ([tools.fail]).
func addRawTool(s *mcp.Server, t *tools, tool *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, []byte) (any, error)) {
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := []byte(req.Params.Arguments)
		if len(args) == 0 {
			args = []byte("{}")
		}
		out, err := h(ctx, req, args)
		if err != nil {
			return t.fail(ctx, tool.Name, err), nil
		}
		b, ok := out.(json.RawMessage)
		if !ok {
			if b, err = json.Marshal(out); err != nil {
				return t.fail(ctx, tool.Name, err), nil
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: b}, nil
	})
}

// schemaFor is the input schema inferred from In, with the descriptions
// of its jsonschema tags.
func schemaFor[In any](tool string) *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic("mcpserver: input schema of " + tool + ": " + err.Error())
	}
	return schema
}

// fail turns err into a tool result with isError set: the problem details
// of the shared vocabulary (type, title, status, reason code and a message
// for the caller), as structured content and as JSON text. Internal faults
// are logged and described generically.
func (t *tools) fail(ctx context.Context, tool string, err error) *mcp.CallToolResult {
	code := issuer.ErrorCode(err)
	if code == issuer.CodeInternal || code == issuer.CodeUnavailable {
		t.log.ErrorContext(ctx, "mcp tool failed", "tool", tool, "err", err)
	}
	d := problem.New(code, issuer.ErrorMessage(err), "")
	b, _ := json.Marshal(d)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

// FeedbackInput is the input of feedback_memory.
type FeedbackInput struct {
	MemoryID       string                  `json:"memoryId" jsonschema:"the memory to validate (mem_…); retrieve it first"`
	Type           *string                 `json:"type,omitempty" jsonschema:"corroborate, contradict, useful, not_useful, used_successfully or used_unsuccessfully"`
	Reason         *string                 `json:"reason,omitempty" jsonschema:"why, at most 1000 characters; kept private"`
	Verdict        *string                 `json:"verdict,omitempty" jsonschema:"legacy alternative to type: confirm, contradict, outdated or irrelevant"`
	Note           *string                 `json:"note,omitempty" jsonschema:"legacy alternative to reason, with verdict"`
	IdempotencyKey *string                 `json:"idempotencyKey,omitempty" jsonschema:"1 to 200 characters; a retry with the same key and input returns the recorded response"`
	Evidence       *issuer.EvidenceRequest `json:"evidence,omitempty" jsonschema:"what you checked, for corroborate, contradict and the used types: {type: test|repro|hash|run|source, detail, artifact?, env?}"`
	StillValid     *bool                   `json:"stillValid,omitempty" jsonschema:"true renews your standing corroborate or used_successfully position of this type; it counts at most once per 30 days"`
}

func (t *tools) feedbackMemory(ctx context.Context, req *mcp.CallToolRequest, in FeedbackInput) (any, error) {
	p, err := principal(req)
	if err != nil {
		return nil, err
	}
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return nil, err
	}
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return nil, err
	}
	fb, err := issuer.FeedbackRequest{Type: in.Type, Reason: in.Reason, Verdict: in.Verdict, Note: in.Note, IdempotencyKey: in.IdempotencyKey,
		Evidence: in.Evidence, StillValid: in.StillValid}.Normalize()
	if err != nil {
		return nil, err
	}
	res, _, err := t.app.SubmitFeedback(ctx, p, id, fb, issuer.TransportMCP)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// OutcomeInput is the input of report_outcome.
type OutcomeInput struct {
	MemoryID       string                 `json:"memoryId" jsonschema:"the memory used (mem_…); retrieve it first"`
	Outcome        string                 `json:"outcome" jsonschema:"success, failure, partial or uncertain"`
	Context        *issuer.ContextRequest `json:"context,omitempty" jsonschema:"the task context: domain, environment, protocol, version, workload, constraints; each at most 200 bytes"`
	IdempotencyKey *string                `json:"idempotencyKey,omitempty" jsonschema:"1 to 200 characters; a retry with the same key and input returns the recorded response"`
}

func (t *tools) reportOutcome(ctx context.Context, req *mcp.CallToolRequest, in OutcomeInput) (any, error) {
	p, err := principal(req)
	if err != nil {
		return nil, err
	}
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return nil, err
	}
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return nil, err
	}
	o, err := issuer.OutcomeRequest{Outcome: in.Outcome, Context: in.Context, IdempotencyKey: in.IdempotencyKey}.Normalize()
	if err != nil {
		return nil, err
	}
	res, _, err := t.app.ReportOutcome(ctx, p, id, o, issuer.TransportMCP)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// MemoryInput names a memory.
type MemoryInput struct {
	MemoryID string `json:"memoryId" jsonschema:"the memory (mem_…)"`
}

func (t *tools) memoryValidations(ctx context.Context, req *mcp.CallToolRequest, in MemoryInput) (any, error) {
	p, err := principal(req)
	if err != nil {
		return nil, err
	}
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return nil, err
	}
	sum, err := t.app.Validations(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return sum, nil
}

// ProfileInput is the empty input of get_agent_profile.
type ProfileInput struct{}

func (t *tools) agentProfile(ctx context.Context, req *mcp.CallToolRequest, _ ProfileInput) (any, error) {
	p, err := principal(req)
	if err != nil {
		return nil, err
	}
	pr, err := t.app.Profile(ctx, p)
	if err != nil {
		return nil, err
	}
	return pr, nil
}

// ReputationInput is the input of get_agent_reputation.
type ReputationInput struct {
	PublicID string  `json:"publicId" jsonschema:"the agent (agt_…)"`
	Domain   *string `json:"domain,omitempty" jsonschema:"only this domain, normalised like memory categories; not blank"`
	Limit    *int    `json:"limit,omitempty" jsonschema:"events per page, 1 to 50 (default 20)"`
	Cursor   *string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, for the same agent and domain, read with the same API key"`
}

func (t *tools) agentReputation(ctx context.Context, req *mcp.CallToolRequest, in ReputationInput) (any, error) {
	p, err := principal(req)
	if err != nil {
		return nil, err
	}
	id, err := issuer.ParseAgentID(in.PublicID)
	if err != nil {
		return nil, err
	}
	q, err := issuer.NewReputationQuery(in.Domain, in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rep, err := t.app.Reputation(ctx, p, id, q)
	if err != nil {
		return nil, err
	}
	return rep, nil
}
