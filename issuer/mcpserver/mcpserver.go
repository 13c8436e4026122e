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
// bearer key, when one was sent, and put the principal in the request
// context ([issuer.NewContext]); a request without one is anonymous. The
// HTTP API does so, and answers a request it refuses (a key that is not
// valid, a rate limit) with [Transport.Refuse], in the form of the
// endpoint's own transport errors. The public tools (those of public HTTP
// routes) answer anyone alike; the others refuse an anonymous call with
// unauthorized and [NeedsKey]. Every tool declares a title, an output
// schema and annotations that say whether it writes (SPEC.md §14.4).
//
// The handler reads each message itself (gzip-encoded bodies are decoded, and bounded after
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
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/internal/requestlog"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/verifier"
)

// MaxMessage bounds one MCP message, after decompression, except a call
// of a tool with a larger bound (verify_passport: [MaxVerifyMessage]).
const MaxMessage = 128 << 10

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
	version   string
	// registered are the tools and their handlers, in the order they are
	// listed.
	registered []registered
}

// registered is a tool and its handler.
type registered struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// server returns an MCP server logging to logger, with the tools the
// message needs ([toolsFor]). The endpoint is stateless, so each request
// gets a server of its own, whose log lines (the SDK's too) carry the
// request's identifier. Adding a tool reads its schemas, so a server gets
// only the tools its message lists or calls, and the tool a call names
// without them: the SDK validates neither the arguments nor the result of
// a handler that reads raw arguments, and does not list tools on a call.
func (t *tools) server(logger *slog.Logger, need needed) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "passportkit-issuer", Title: "passportkit issuer", Version: t.version},
		&mcp.ServerOptions{Logger: logger, Instructions: Instructions,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	for _, r := range t.registered {
		switch {
		case need.all:
			s.AddTool(r.tool, r.handler)
		case need.tool == r.tool.Name:
			s.AddTool(&mcp.Tool{Name: r.tool.Name, InputSchema: anyObject}, r.handler)
		}
	}
	return s
}

// anyObject is the input schema of a tool on the server of a call.
var anyObject = &jsonschema.Schema{Type: "object"}

// needed is the tools a message needs: all of them (tools/list), one
// (tools/call), or none.
type needed struct {
	all  bool
	tool string
}

type neededKey struct{}

// withNeeded returns ctx saying which tools the message msg needs.
func withNeeded(ctx context.Context, msg jsonrpc.Message) context.Context {
	var need needed
	if req, ok := msg.(*jsonrpc.Request); ok {
		switch req.Method {
		case "tools/list":
			need.all = true
		case "tools/call":
			need.tool, _ = toolName(req.Params)
		}
	}
	return context.WithValue(ctx, neededKey{}, need)
}

// toolsFor returns the tools the message of a request needs.
func toolsFor(ctx context.Context) needed {
	need, _ := ctx.Value(neededKey{}).(needed)
	return need
}

// newTools returns the issuer's tools over app.
func newTools(app Issuer, logger *slog.Logger, version string, cfg config) *tools {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	t := &tools{app: app, log: logger, cfg: cfg, bounds: map[string]int{}, verifiers: verifier.NewCache(), version: version}
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "feedback_memory",
		Title: "Validate a memory",
		Description: "Record your validation of a memory you have retrieved: one of corroborate, contradict, useful, " +
			"not_useful, used_successfully, used_unsuccessfully, with an optional reason; or the legacy verdict " +
			"(confirm, contradict, outdated, irrelevant) with a note. One current position per memory: a new type " +
			"replaces your previous one. Returns the position and the memory's validation summary. Needs an API key (feedback scope).",
		Annotations: writes(replaces),
	}, t.feedbackMemory)
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "report_outcome",
		Title: "Report the outcome of using a memory",
		Description: "Report what happened when you used a memory you have retrieved: success, failure, partial or " +
			"uncertain, with the task context you used it in. success and failure are your used_successfully or " +
			"used_unsuccessfully position on the memory (one position per memory; a new report replaces it); partial " +
			"and uncertain are recorded without reputation effect. Returns the report and, for success and failure, the position. " +
			"Needs an API key (feedback scope).",
		Annotations: writes(replaces),
	}, t.reportOutcome)
	addTool(t, keyHolder, &mcp.Tool{
		Name:        "get_memory_validations",
		Title:       "A memory's validations",
		Description: "The validation summary of a memory: its knowledge state and the counts and weights of current positions. It describes recorded evidence, not truth. Needs an API key.",
		Annotations: reads(),
	}, t.memoryValidations)
	addTool(t, keyHolder, &mcp.Tool{
		Name:        "get_agent_profile",
		Title:       "Your agent profile",
		Description: "Your own agent profile: trust level, reputation score, domain reputations, activity and scopes. Needs an API key.",
		Annotations: reads(),
	}, t.agentProfile)
	addTool(t, keyHolder, &mcp.Tool{
		Name:        "get_agent_reputation",
		Title:       "An agent's reputation",
		Description: "An agent's reputation explanation: aggregates, domains, policy version and a page of reputation events (newest first). Optional domain filter; limit at most 50; pass nextCursor as cursor for the next page. Needs an API key (search scope).",
		Annotations: reads(),
	}, t.agentReputation)
	addSearchTool(t)
	addHolderKeyTools(t)
	addPassportTools(t)
	addTrustTools(t)
	addFindAgentsTool(t)
	addKnowledgeTools(t)
	addFeedTools(t)
	return t
}

// Handler returns the streamable HTTP handler for the tools. It is
// stateless: any replica can answer any request.
func Handler(app Issuer, logger *slog.Logger, version string, opts ...Option) *Transport {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	t := newTools(app, logger, version, cfg)
	largest := MaxMessage
	for _, n := range t.bounds {
		largest = max(largest, n)
	}
	serve := func(r *http.Request) *mcp.Server {
		return t.server(t.log.With("request_id", requestlog.ID(r.Context())), toolsFor(r.Context()))
	}
	h := mcp.NewStreamableHTTPHandler(serve, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              t.log,
		MaxRequestBodyBytes: int64(largest),
	})
	return &Transport{
		next:        h,
		bounds:      t.bounds,
		largest:     largest,
		bodyTimeout: cfg.bodyTimeout,
	}
}

// access says who may call a tool.
type access int

const (
	// anyone may call a public tool, with or without an API key: it
	// answers what a public HTTP route serves, the same for every caller.
	anyone access = iota
	// keyHolder tools need an API key; the use case checks its scope.
	keyHolder
)

// NeedsKey is the detail of the unauthorized refusal of a tool that needs
// an API key, called without one: how to get one.
const NeedsKey = "this tool needs an API key, sent on each request as Authorization: Bearer <key>; an operator of the " +
	"issuer creates an agent and its key with `passport-issuer agents create --name NAME` (the key is shown once). " +
	"The public tools (get_agent_passport, verify_passport, get_agent_skills, get_skill_trust, get_skill_evidence, " +
	"assess_trust, find_agents) need none"

// principal returns the caller of a tool: the principal the HTTP layer
// authenticated and put in the request context, from which the SDK
// derives each call's context. A call without one is anonymous.
func principal(ctx context.Context) (issuer.Principal, bool) {
	return issuer.FromContext(ctx)
}

// The annotations of the tools. No tool reaches beyond the issuer's own
// records (openWorldHint false). A write that replaces the caller's earlier
// record (a position, the holder keys) is destructive; repeating one with
// the same arguments changes nothing more (idempotent), except where it
// makes something new each time (a nonce).
type effect int

const (
	// replaces: the call replaces the caller's earlier record; an exact
	// repeat writes nothing.
	replaces effect = iota
	// makesNew: each call makes a new record, replacing none.
	makesNew
	// storesOnce: the call stores what is addressed by its content; a
	// repeat writes nothing and nothing is replaced.
	storesOnce
)

// reads annotates a tool that changes nothing.
func reads() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: new(false), OpenWorldHint: new(false)}
}

// writes annotates a tool that writes, with its effect.
func writes(e effect) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{IdempotentHint: e != makesNew, DestructiveHint: new(e == replaces), OpenWorldHint: new(false)}
}

// addTool registers a tool over a use case: h reads the decoded input,
// calls the use case and returns its answer. Adding a tool is a call of
// addTool with who may call it, the tool's name, title, description and
// annotations, an input struct, an output type and h.
//
// The raw arguments are decoded by [issuer.Decode], the decoder of the
// HTTP API: exact member names, no duplicates (also up to case), no
// unknown members, strict UTF-8 and numbers, within the tool's message
// bound. The input schema is inferred from In, and the output schema from
// Out ([outputSchema]), unless the tool has them.
func addTool[In, Out any](t *tools, who access, tool *mcp.Tool, h func(context.Context, issuer.Principal, In) (Out, error)) {
	if tool.InputSchema == nil {
		tool.InputSchema = schemaFor[In](tool.Name)
	}
	limit := cmp.Or(t.bounds[tool.Name], MaxMessage)
	addRawTool(t, who, tool, func(ctx context.Context, p issuer.Principal, args []byte) (Out, error) {
		var in In
		if err := issuer.Decode(args, limit, &in); err != nil {
			var zero Out
			return zero, err
		}
		return h(ctx, p, in)
	})
}

// addRawTool registers a tool whose handler reads the raw arguments
// itself, with the parser of an HTTP route that reads the same JSON
// object as its body (assess_trust: issuer.ParseAssessRequest); tool
// must have its input schema. Absent arguments are {}.
//
// Every call goes through one prologue: a tool for key holders refuses an
// anonymous call (unauthorized, [NeedsKey]) before its arguments are
// read; the principal, or the zero one for an anonymous call of a public
// tool, goes to h. The result is h's value as structured content and as
// JSON text; a json.RawMessage is written as it is, byte for byte. An
// error is a tool result with isError set ([tools.fail]).
func addRawTool[Out any](t *tools, who access, tool *mcp.Tool, h func(context.Context, issuer.Principal, []byte) (Out, error)) {
	if tool.OutputSchema == nil {
		tool.OutputSchema = outputSchema[Out](tool.Name)
	}
	t.register(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p, ok := principal(ctx)
		if !ok && who == keyHolder {
			return t.fail(ctx, tool.Name, issuer.Errorf(issuer.CodeUnauthorized, "%s", NeedsKey)), nil
		}
		args := []byte(req.Params.Arguments)
		if len(args) == 0 {
			args = []byte("{}")
		}
		out, err := h(ctx, p, args)
		if err != nil {
			return t.fail(ctx, tool.Name, err), nil
		}
		b, ok := any(out).(json.RawMessage)
		if !ok {
			if b, err = json.Marshal(out); err != nil {
				return t.fail(ctx, tool.Name, err), nil
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: b}, nil
	})
}

// register adds a tool and its handler to those the servers may have.
func (t *tools) register(tool *mcp.Tool, h mcp.ToolHandler) {
	t.registered = append(t.registered, registered{tool: tool, handler: h})
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
		t.log.ErrorContext(ctx, "mcp tool failed", "request_id", requestlog.ID(ctx), "tool", tool, "err", err)
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

func (t *tools) feedbackMemory(ctx context.Context, p issuer.Principal, in FeedbackInput) (issuer.FeedbackResult, error) {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return issuer.FeedbackResult{}, err
	}
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return issuer.FeedbackResult{}, err
	}
	fb, err := issuer.FeedbackRequest{Type: in.Type, Reason: in.Reason, Verdict: in.Verdict, Note: in.Note, IdempotencyKey: in.IdempotencyKey,
		Evidence: in.Evidence, StillValid: in.StillValid}.Normalize()
	if err != nil {
		return issuer.FeedbackResult{}, err
	}
	res, _, err := t.app.SubmitFeedback(ctx, p, id, fb, issuer.TransportMCP)
	return res, err
}

// OutcomeInput is the input of report_outcome.
type OutcomeInput struct {
	MemoryID       string                 `json:"memoryId" jsonschema:"the memory used (mem_…); retrieve it first"`
	Outcome        string                 `json:"outcome" jsonschema:"success, failure, partial or uncertain"`
	Context        *issuer.ContextRequest `json:"context,omitempty" jsonschema:"the task context: domain, environment, protocol, version, workload, constraints; each at most 200 bytes"`
	IdempotencyKey *string                `json:"idempotencyKey,omitempty" jsonschema:"1 to 200 characters; a retry with the same key and input returns the recorded response"`
}

func (t *tools) reportOutcome(ctx context.Context, p issuer.Principal, in OutcomeInput) (issuer.OutcomeResult, error) {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return issuer.OutcomeResult{}, err
	}
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return issuer.OutcomeResult{}, err
	}
	o, err := issuer.OutcomeRequest{Outcome: in.Outcome, Context: in.Context, IdempotencyKey: in.IdempotencyKey}.Normalize()
	if err != nil {
		return issuer.OutcomeResult{}, err
	}
	res, _, err := t.app.ReportOutcome(ctx, p, id, o, issuer.TransportMCP)
	return res, err
}

// MemoryInput names a memory.
type MemoryInput struct {
	MemoryID string `json:"memoryId" jsonschema:"the memory (mem_…)"`
}

func (t *tools) memoryValidations(ctx context.Context, p issuer.Principal, in MemoryInput) (reputation.Summary, error) {
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return reputation.Summary{}, err
	}
	return t.app.Validations(ctx, p, id)
}

// ProfileInput is the empty input of get_agent_profile.
type ProfileInput struct{}

func (t *tools) agentProfile(ctx context.Context, p issuer.Principal, _ ProfileInput) (issuer.Profile, error) {
	return t.app.Profile(ctx, p)
}

// ReputationInput is the input of get_agent_reputation.
type ReputationInput struct {
	PublicID string  `json:"publicId" jsonschema:"the agent (agt_…)"`
	Domain   *string `json:"domain,omitempty" jsonschema:"only this domain, normalised like memory categories; not blank"`
	Limit    *int    `json:"limit,omitempty" jsonschema:"events per page, 1 to 50 (default 20)"`
	Cursor   *string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, for the same agent and domain, read with the same API key"`
}

func (t *tools) agentReputation(ctx context.Context, p issuer.Principal, in ReputationInput) (issuer.ReputationReport, error) {
	id, err := issuer.ParseAgentID(in.PublicID)
	if err != nil {
		return issuer.ReputationReport{}, err
	}
	q, err := issuer.NewReputationQuery(in.Domain, in.Limit, in.Cursor)
	if err != nil {
		return issuer.ReputationReport{}, err
	}
	return t.app.Reputation(ctx, p, id, q)
}
