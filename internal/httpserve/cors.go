package httpserve

import (
	"net/http"
	"strconv"
	"strings"
)

// The CORS protocol (the Fetch standard) for routes that any web page may
// read: public data, no credentials. An answer is the same for every
// origin ("*"), so it never varies by Origin.

// PreflightMaxAge is how long, in seconds, a browser may reuse the answer
// to a preflight: two hours, the most Chromium keeps one.
const PreflightMaxAge = 7200

// CrossOriginRequestHeaders are the request headers a page may send to a
// cross-origin route beyond those the Fetch standard always allows. An
// Authorization header is not among them: these routes take no key, and a
// page that sends one is refused at the preflight.
var CrossOriginRequestHeaders = []string{"Content-Type", "Content-Encoding", "If-None-Match", "X-Request-Id"}

// CrossOriginExposedHeaders are the answer headers a page may read beyond
// those the Fetch standard always exposes (Cache-Control, Content-Language,
// Content-Length, Content-Type, Expires, Last-Modified, Pragma): the
// validator, links, the wait of a rate limit, and the request identifier.
var CrossOriginExposedHeaders = []string{"ETag", "Link", "Retry-After", "X-Request-Id"}

var (
	allowHeaders  = strings.Join(CrossOriginRequestHeaders, ", ")
	exposeHeaders = strings.Join(CrossOriginExposedHeaders, ", ")
)

// AllowAnyOrigin marks the answer whose headers are h as readable by a
// page of any origin, without credentials, exposing
// [CrossOriginExposedHeaders].
func AllowAnyOrigin(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", exposeHeaders)
}

// Preflight answers an OPTIONS request, a CORS preflight, for a resource
// any origin may call with methods: 204 No Content, allowing any origin
// (no credentials), those methods and [CrossOriginRequestHeaders], for
// [PreflightMaxAge] seconds. Allow lists the methods and OPTIONS.
func Preflight(w http.ResponseWriter, methods []string) {
	h := w.Header()
	m := strings.Join(methods, ", ")
	h.Set("Allow", m+", OPTIONS")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", m)
	h.Set("Access-Control-Allow-Headers", allowHeaders)
	h.Set("Access-Control-Max-Age", strconv.Itoa(PreflightMaxAge))
	w.WriteHeader(http.StatusNoContent)
}
