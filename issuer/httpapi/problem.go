package httpapi

import (
	"net/http"

	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/internal/problem/problemhttp"
	"github.com/remnant/passportkit/issuer"
)

// Problem is an RFC 9457 problem details object, extended with the stable
// reason code; the type URI is derived from the code
// (urn:passportkit:problem:<code>).
type Problem = problem.Details

// writeProblem writes err as problem details.
func (s *Server) writeProblem(w http.ResponseWriter, r *http.Request, err error) {
	problemhttp.Write(w, s.refusal(w, r, err))
}

// refusal logs err, sets the headers its code calls for, and returns its
// problem details. Faults on the server are logged with their cause;
// refusals are logged at debug level with their code only, as their
// message may quote the request's body.
func (s *Server) refusal(w http.ResponseWriter, r *http.Request, err error) Problem {
	p := problem.Of(err, r.URL.Path)
	if p.Status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "err", err)
	} else {
		s.log.DebugContext(r.Context(), "request refused", "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "code", p.Code)
	}
	switch p.Code {
	case issuer.CodeUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="passportkit"`)
	case issuer.CodeInsufficientScope:
		w.Header().Set("WWW-Authenticate", `Bearer realm="passportkit", error="insufficient_scope"`)
	}
	return p
}
