// Package problemhttp writes the refusals of package problem over HTTP:
// as an application/problem+json response ([Write]), and in place of the
// plain-text answers net/http writes before any handler runs ([Listener]).
package problemhttp

import (
	"encoding/json"
	"net/http"

	"github.com/remnant/passportkit/internal/problem"
)

// Write writes d as application/problem+json. The body is data for a
// program: it is never to be sniffed or rendered as HTML.
func Write(w http.ResponseWriter, d problem.Details) {
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	if d.Status == http.StatusRequestTimeout || d.Status == http.StatusRequestHeaderFieldsTooLarge {
		h.Set("Connection", "close")
	}
	w.WriteHeader(d.Status)
	json.NewEncoder(w).Encode(d)
}
