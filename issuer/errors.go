package issuer

import (
	"errors"
	"fmt"
)

// Code is a stable reason code for a refused or failed operation. HTTP
// responses, MCP tool errors and the CLI all report the same codes.
type Code string

// The error codes. Each refusal says why with one of these.
const (
	CodeInvalid             Code = "invalid_request"      // malformed or out-of-bounds input
	CodeUnauthorized        Code = "unauthorized"         // no valid API key
	CodeInsufficientScope   Code = "insufficient_scope"   // the key lacks the scope the operation needs
	CodeAgentInactive       Code = "agent_inactive"       // the calling agent is not active
	CodeSelfFeedback        Code = "self_feedback"        // an agent validating its own memory
	CodeSameOwner           Code = "same_owner"           // evaluator and author share a known operator
	CodeConsumptionRequired Code = "consumption_required" // the evaluator never retrieved the memory
	CodeNotFound            Code = "not_found"            // no such resource, or not visible to the caller
	CodeMethodNotAllowed    Code = "method_not_allowed"   // the resource exists, the method does not
	CodeIdempotencyConflict Code = "idempotency_conflict" // an idempotency key reused with different input
	CodeConflict            Code = "conflict"             // the request conflicts with the current state
	CodeTooLarge            Code = "body_too_large"       // the request body exceeds its bound
	CodeUnsupportedMedia    Code = "unsupported_media_type"
	CodeRateLimited         Code = "rate_limited" // too many requests for this key
	CodeUnavailable         Code = "unavailable"  // the store is busy or shutting down; retry later
	CodeInternal            Code = "internal"     // a fault on the server; details are logged, not returned
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
