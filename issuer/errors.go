package issuer

import (
	"errors"
	"fmt"

	"github.com/remnant/passportkit/internal/problem"
)

// Code is a stable reason code for a refused or failed operation. HTTP
// responses, MCP tool errors and the CLI all report the same codes, from the
// one vocabulary both services share.
type Code = problem.Code

// The error codes. Each refusal says why with one of these.
const (
	CodeInvalid             = problem.Invalid             // malformed or out-of-bounds input
	CodeJSONMalformed       = problem.JSONMalformed       // the body is not JSON
	CodeJSONInvalidUTF8     = problem.JSONInvalidUTF8     // the body is not valid UTF-8
	CodeJSONLoneSurrogate   = problem.JSONLoneSurrogate   // a \u escape holds a lone surrogate
	CodeJSONDuplicateKey    = problem.JSONDuplicateKey    // a member named twice, exactly or up to case
	CodeJSONUnknownMember   = problem.JSONUnknownMember   // a member the request does not define
	CodeJSONWrongType       = problem.JSONWrongType       // a member of the wrong JSON type or range
	CodeJSONNumberRange     = problem.JSONNumberRange     // an integer beyond ±(2^53−1)
	CodeJSONTooDeep         = problem.JSONTooDeep         // nesting deeper than 8 levels
	CodeJSONTrailingData    = problem.JSONTrailingData    // data after the JSON object
	CodeTooManyItems        = problem.TooManyItems        // more agents, skills or holder keys than one request may name
	CodeUnknownDimension    = problem.UnknownDimension    // a context dimension the trust model does not define
	CodeCursorInvalid       = problem.CursorInvalid       // a cursor the service did not issue, or one altered
	CodeLimitOutOfRange     = problem.LimitOutOfRange     // a page limit or offset outside its bounds
	CodeHolderKeyInvalid    = problem.HolderKeyInvalid    // not an Ed25519 or P-256 public JWK, or one with a private member
	CodeHolderProofInvalid  = problem.HolderProofInvalid  // a proof of possession that is malformed, unsigned by its key, or not for this issuer and agent
	CodeHolderNonceInvalid  = problem.HolderNonceInvalid  // a nonce this issuer did not hand to this agent
	CodeHolderNonceExpired  = problem.HolderNonceExpired  // a nonce past its expiry
	CodeUnauthorized        = problem.Unauthorized        // no valid API key
	CodeInsufficientScope   = problem.InsufficientScope   // the key lacks the scope the operation needs
	CodeAgentInactive       = problem.AgentInactive       // the calling agent is not active
	CodeSelfFeedback        = problem.SelfFeedback        // an agent validating its own memory
	CodeSameOwner           = problem.SameOwner           // evaluator and author share a known operator
	CodeConsumptionRequired = problem.ConsumptionRequired // the evaluator never retrieved the memory
	CodeNotFound            = problem.NotFound            // no such resource, or not visible to the caller
	CodeMethodNotAllowed    = problem.MethodNotAllowed    // the resource exists, the method does not
	CodeRequestTimeout      = problem.RequestTimeout      // the request body did not arrive in time
	CodeIdempotencyConflict = problem.IdempotencyConflict // an idempotency key reused with different input
	CodeConflict            = problem.Conflict            // the request conflicts with the current state
	CodeTooLarge            = problem.TooLarge            // the request body exceeds its bound
	CodeUnsupportedMedia    = problem.UnsupportedMedia    // not application/json, or an unknown content encoding
	CodeRateLimited         = problem.RateLimited         // too many requests for this key
	CodeUnavailable         = problem.Unavailable         // the store is busy or shutting down; retry later
	CodeInternal            = problem.Internal            // a fault on the server; details are logged, not returned
)

// Error is the issuer's error type: a code, and a message safe to show to the
// caller. An internal cause, if any, is kept for logs and reachable with
// errors.Unwrap, but is never part of Message.
type Error struct {
	Code    Code
	Message string
	Err     error
}

// Error returns the message, followed by the cause for logs.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Err }

// ProblemCode returns the error's reason code (problem.Coded).
func (e *Error) ProblemCode() Code { return e.Code }

// ProblemDetail returns the caller-safe message (problem.Coded).
func (e *Error) ProblemDetail() string { return e.Message }

var _ problem.Coded = (*Error)(nil)

// Errorf returns an [Error] with the given code and a formatted message for
// the caller.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first [Error] in err's chain,
// [CodeInternal] for any other error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the caller-safe message of err: the message of its
// [Error], or a generic sentence for any other error.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "an internal error occurred"
}
