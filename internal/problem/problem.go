// Package problem is the one vocabulary of refusals shared by the issuer
// service and the verification service, as RFC 9457 problem details; its
// subpackage problemhttp writes them over HTTP.
//
// Each refusal has a stable reason [Code]. The HTTP status, the title and
// the problem type URI are derived from the code, in one table ([Lookup])
// and one function ([TypeURI]); nothing else chooses them. docs/reference.md lists
// the vocabulary.
package problem

import "errors"

// Code is a stable reason code for a refused or failed request.
type Code string

// The vocabulary. Every problem either service answers uses one of these.
const (
	Invalid             Code = "invalid_request"           // malformed or out-of-bounds input
	JSONMalformed       Code = "json_malformed"            // the body is not JSON
	JSONInvalidUTF8     Code = "json_invalid_utf8"         // the body is not valid UTF-8
	JSONLoneSurrogate   Code = "json_lone_surrogate"       // a \u escape holds a lone surrogate
	JSONDuplicateKey    Code = "json_duplicate_key"        // a member named twice, exactly or up to case
	JSONUnknownMember   Code = "json_unknown_member"       // a member the request does not define
	JSONWrongType       Code = "json_wrong_type"           // a member of the wrong JSON type or range
	JSONNumberRange     Code = "json_number_range"         // a number beyond what JSON readers hold exactly
	JSONTooDeep         Code = "json_too_deep"             // nesting deeper than the request allows
	JSONTrailingData    Code = "json_trailing_data"        // data after the JSON value
	TooManyItems        Code = "too_many_items"            // more agents, skills or holder keys than one request may name
	UnknownDimension    Code = "unknown_context_dimension" // a context dimension the trust model does not define
	CursorInvalid       Code = "cursor_invalid"            // a cursor this service did not issue, or one altered
	LimitOutOfRange     Code = "limit_out_of_range"        // a page limit or offset outside its bounds
	HolderKeyInvalid    Code = "holder_key_invalid"        // not an Ed25519 or P-256 public JWK, or one with a private member
	HolderProofInvalid  Code = "holder_proof_invalid"      // a proof of possession that is malformed, unsigned by its key, or not for this issuer and agent
	HolderNonceInvalid  Code = "holder_nonce_invalid"      // a nonce this issuer did not hand to this agent
	HolderNonceExpired  Code = "holder_nonce_expired"      // a nonce past its expiry
	Unauthorized        Code = "unauthorized"              // no valid API key
	InsufficientScope   Code = "insufficient_scope"        // the key lacks the scope the operation needs
	AgentInactive       Code = "agent_inactive"            // the calling agent is not active
	SelfFeedback        Code = "self_feedback"             // an agent validating its own memory
	SameOwner           Code = "same_owner"                // evaluator and author share a known operator
	ConsumptionRequired Code = "consumption_required"      // the evaluator never retrieved the memory
	NotFound            Code = "not_found"                 // no such resource, or not visible to the caller
	MethodNotAllowed    Code = "method_not_allowed"        // the resource exists, the method does not
	RequestTimeout      Code = "request_timeout"           // the body did not arrive in time
	IdempotencyConflict Code = "idempotency_conflict"      // an idempotency key reused with different input
	Conflict            Code = "conflict"                  // the request conflicts with the current state
	TooLarge            Code = "body_too_large"            // the body exceeds its bound, also after decompression
	UnsupportedMedia    Code = "unsupported_media_type"
	RateLimited         Code = "rate_limited"     // too many requests from this key or address
	HeaderTooLarge      Code = "header_too_large" // the request line and headers exceed their bound
	Internal            Code = "internal"         // a fault on the server; details are logged, not returned
	Unavailable         Code = "unavailable"      // busy or shutting down; retry later
)

// TypePrefix makes a problem's type URI from its code. The URN names the
// code; it is not meant to be dereferenced.
const TypePrefix = "urn:passportkit:problem:"

// Entry is what the vocabulary says about one code.
type Entry struct {
	// Status is the HTTP status code; this package imports no HTTP code,
	// so that the domain packages can name refusals without it.
	Status int
	Title  string
}

var table = map[Code]Entry{
	Invalid:             {400, "Invalid request"},
	JSONMalformed:       {400, "Malformed JSON"},
	JSONInvalidUTF8:     {400, "Invalid UTF-8"},
	JSONLoneSurrogate:   {400, "Lone surrogate"},
	JSONDuplicateKey:    {400, "Duplicate member"},
	JSONUnknownMember:   {400, "Unknown member"},
	JSONWrongType:       {400, "Wrong type"},
	JSONNumberRange:     {400, "Number out of range"},
	JSONTooDeep:         {400, "Nesting too deep"},
	JSONTrailingData:    {400, "Trailing data"},
	TooManyItems:        {400, "Too many items"},
	UnknownDimension:    {400, "Unknown context dimension"},
	CursorInvalid:       {400, "Invalid cursor"},
	LimitOutOfRange:     {400, "Limit out of range"},
	HolderKeyInvalid:    {400, "Invalid holder key"},
	HolderProofInvalid:  {400, "Invalid proof of possession"},
	HolderNonceInvalid:  {400, "Invalid nonce"},
	HolderNonceExpired:  {400, "Nonce expired"},
	Unauthorized:        {401, "Authentication required"},
	InsufficientScope:   {403, "Insufficient scope"},
	AgentInactive:       {403, "Agent not active"},
	SelfFeedback:        {403, "Self-validation refused"},
	SameOwner:           {403, "Same-owner validation refused"},
	ConsumptionRequired: {403, "Retrieval required"},
	NotFound:            {404, "Not found"},
	MethodNotAllowed:    {405, "Method not allowed"},
	RequestTimeout:      {408, "Request timeout"},
	IdempotencyConflict: {409, "Idempotency key reused"},
	Conflict:            {409, "Conflict"},
	TooLarge:            {413, "Request body too large"},
	UnsupportedMedia:    {415, "Unsupported media type"},
	RateLimited:         {429, "Too many requests"},
	HeaderTooLarge:      {431, "Request header fields too large"},
	Internal:            {500, "Internal error"},
	Unavailable:         {503, "Service unavailable"},
}

// Lookup returns the status and title of code; an unknown code is reported
// as [Internal].
func Lookup(code Code) (Code, Entry) {
	e, ok := table[code]
	if !ok {
		return Internal, table[Internal]
	}
	return code, e
}

// Codes returns every code of the vocabulary.
func Codes() []Code {
	out := make([]Code, 0, len(table))
	for c := range table {
		out = append(out, c)
	}
	return out
}

// TypeURI returns the problem type URI of code.
func TypeURI(code Code) string { return TypePrefix + string(code) }

// Details is an RFC 9457 problem details object, extended with the stable
// reason code.
type Details struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	Code     Code   `json:"code"`
}

// New returns the problem details of code with a detail message for the
// caller and the request path as instance.
func New(code Code, detail, instance string) Details {
	code, e := Lookup(code)
	return Details{Type: TypeURI(code), Title: e.Title, Status: e.Status, Detail: detail, Instance: instance, Code: code}
}

// Coded is an error that carries its own reason code and a detail that may
// be shown to the caller. The issuer's errors and the body reader's are.
type Coded interface {
	error
	ProblemCode() Code
	ProblemDetail() string
}

// Of returns the problem details of err on the request path instance: its
// code and detail when err wraps a [Coded] error, and [Internal] with a
// generic detail otherwise, so that nothing internal reaches the caller.
func Of(err error, instance string) Details {
	if c, ok := errors.AsType[Coded](err); ok {
		return New(c.ProblemCode(), c.ProblemDetail(), instance)
	}
	return New(Internal, "an internal error occurred", instance)
}
