package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/remnant/passportkit/issuer"
)

// problemTypePrefix makes a problem's type URI from its code. The URN names
// the code; it is not meant to be dereferenced.
const problemTypePrefix = "urn:passportkit:problem:"

// Problem is an RFC 9457 problem details object, extended with the stable
// reason code.
type Problem struct {
	Type     string      `json:"type"`
	Title    string      `json:"title"`
	Status   int         `json:"status"`
	Detail   string      `json:"detail,omitempty"`
	Instance string      `json:"instance,omitempty"`
	Code     issuer.Code `json:"code"`
}

// statuses is the one table from error codes to HTTP status and title.
var statuses = map[issuer.Code]struct {
	status int
	title  string
}{
	issuer.CodeInvalid:             {http.StatusBadRequest, "Invalid request"},
	issuer.CodeUnauthorized:        {http.StatusUnauthorized, "Authentication required"},
	issuer.CodeInsufficientScope:   {http.StatusForbidden, "Insufficient scope"},
	issuer.CodeAgentInactive:       {http.StatusForbidden, "Agent not active"},
	issuer.CodeSelfFeedback:        {http.StatusForbidden, "Self-validation refused"},
	issuer.CodeSameOwner:           {http.StatusForbidden, "Same-owner validation refused"},
	issuer.CodeConsumptionRequired: {http.StatusForbidden, "Retrieval required"},
	issuer.CodeNotFound:            {http.StatusNotFound, "Not found"},
	issuer.CodeMethodNotAllowed:    {http.StatusMethodNotAllowed, "Method not allowed"},
	issuer.CodeIdempotencyConflict: {http.StatusConflict, "Idempotency key reused"},
	issuer.CodeConflict:            {http.StatusConflict, "Conflict"},
	issuer.CodeTooLarge:            {http.StatusRequestEntityTooLarge, "Request body too large"},
	issuer.CodeUnsupportedMedia:    {http.StatusUnsupportedMediaType, "Unsupported media type"},
	issuer.CodeRateLimited:         {http.StatusTooManyRequests, "Too many requests"},
	issuer.CodeUnavailable:         {http.StatusServiceUnavailable, "Service unavailable"},
	issuer.CodeInternal:            {http.StatusInternalServerError, "Internal error"},
}

// ProblemFor returns the problem details for err on the request path
// instance. Internal errors show only a generic message.
func ProblemFor(err error, instance string) Problem {
	code := issuer.ErrorCode(err)
	st, ok := statuses[code]
	if !ok {
		code, st = issuer.CodeInternal, statuses[issuer.CodeInternal]
	}
	return Problem{
		Type: problemTypePrefix + string(code), Title: st.title, Status: st.status,
		Detail: issuer.ErrorMessage(err), Instance: instance, Code: code,
	}
}

// writeProblem writes err as problem details. Faults on the server are
// logged with their cause; refusals are logged at debug level.
func (s *Server) writeProblem(w http.ResponseWriter, r *http.Request, err error) {
	p := ProblemFor(err, r.URL.Path)
	if p.Status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	} else {
		s.log.DebugContext(r.Context(), "request refused", "method", r.Method, "path", r.URL.Path, "code", p.Code, "err", err)
	}
	switch p.Code {
	case issuer.CodeUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="passportkit"`)
	case issuer.CodeInsufficientScope:
		w.Header().Set("WWW-Authenticate", `Bearer realm="passportkit", error="insufficient_scope"`)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	json.NewEncoder(w).Encode(p)
}
