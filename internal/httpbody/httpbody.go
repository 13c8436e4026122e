// Package httpbody reads a request body for both HTTP services: within a
// byte bound that also holds after gzip decompression, under a deadline,
// and, where asked, only as application/json. A refusal carries its reason
// code from the shared problem vocabulary.
package httpbody

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/problem"
)

// Options say how to read one body.
type Options struct {
	// Limit bounds the body in bytes, after decompression.
	Limit int64
	// Timeout bounds how long the whole body may take to arrive, from the
	// call to [Read]; zero leaves the server's deadlines alone.
	Timeout time.Duration
	// JSON requires a Content-Type of application/json, optionally with
	// charset=utf-8 (parameter names and values compared without case).
	JSON bool
	// DocumentType, with JSON, is a JSON document's own media type (a
	// bundle's, a presentation's), accepted as application/json is.
	DocumentType string
}

// DefaultTimeout is how long a body may take to arrive when a server sets
// no bound of its own.
const DefaultTimeout = 10 * time.Second

// Error is a refused body: its reason code and a message for the caller.
type Error struct {
	Code   problem.Code
	Detail string
	Err    error
}

// Error returns the code and message.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Detail }

// Unwrap returns the read error, if any.
func (e *Error) Unwrap() error { return e.Err }

// ProblemCode returns the refusal's reason code (problem.Coded).
func (e *Error) ProblemCode() problem.Code { return e.Code }

// ProblemDetail returns the refusal's detail (problem.Coded).
func (e *Error) ProblemDetail() string { return e.Detail }

var _ problem.Coded = (*Error)(nil)

// writeGrace is how long a 408 answer may take to write once the body's
// deadline has passed.
const writeGrace = 5 * time.Second

// Read returns r's body. A Content-Encoding of gzip is decoded (the bound
// applies to the decoded bytes); any other encoding but identity is
// unsupported_media_type, as is a Content-Type other than JSON when
// opt.JSON is set. A body over the bound is body_too_large, refused before
// any of it is read when its Content-Length says so (a client waiting on
// Expect: 100-continue is then never asked to send it); one that does not
// arrive within opt.Timeout is request_timeout (the connection is then
// closed after the answer), an unreadable one invalid_request.
func Read(w http.ResponseWriter, r *http.Request, opt Options) ([]byte, error) {
	if opt.JSON {
		if err := checkJSONType(r.Header.Get("Content-Type"), opt.DocumentType); err != nil {
			return nil, err
		}
	}
	gz := false
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		gz = true
	default:
		return nil, &Error{Code: problem.UnsupportedMedia, Detail: "the content encoding must be gzip or none"}
	}
	wire := opt.Limit
	if gz {
		// gzip can expand incompressible bytes a little (a header, a
		// trailer and a few bytes per block): allow for that on the wire,
		// and bound the decoded bytes by Limit below.
		wire = opt.Limit + opt.Limit/16 + 1024
	}
	rc := http.NewResponseController(w)
	if r.ContentLength > wire {
		// Refused on its stated length, unread: a client that sent
		// Expect: 100-continue is not asked for the body.
		return nil, readError(rc, &http.MaxBytesError{Limit: wire}, opt, "")
	}
	if opt.Timeout > 0 {
		// An error means the connection cannot take a deadline (HTTP/2
		// test recorders); the server's own ReadTimeout still applies.
		_ = rc.SetReadDeadline(time.Now().Add(opt.Timeout))
	}
	var src io.Reader = http.MaxBytesReader(w, r.Body, wire)
	if gz {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, readError(rc, err, opt, "the body is not valid gzip")
		}
		defer zr.Close()
		src = zr
	}
	body, err := io.ReadAll(io.LimitReader(src, opt.Limit+1))
	if err == nil && int64(len(body)) > opt.Limit {
		err = &http.MaxBytesError{Limit: opt.Limit}
	}
	if err != nil {
		what := "the body could not be read"
		if gz {
			what = "the body is not valid gzip"
		}
		return nil, readError(rc, err, opt, what)
	}
	if opt.Timeout > 0 {
		// The body is read: lift the deadline, or its expiry would cancel
		// the request's context while the handler still works.
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, nil
}

func readError(rc *http.ResponseController, err error, opt Options, what string) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &Error{Code: problem.TooLarge, Detail: fmt.Sprintf("the body exceeds %d bytes (after decompression)", opt.Limit), Err: err}
	}
	if ne, ok := errors.AsType[net.Error](err); (ok && ne.Timeout()) || errors.Is(err, os.ErrDeadlineExceeded) {
		_ = rc.SetWriteDeadline(time.Now().Add(writeGrace))
		return &Error{Code: problem.RequestTimeout, Detail: fmt.Sprintf("the body did not arrive within %s", opt.Timeout), Err: err}
	}
	return &Error{Code: problem.Invalid, Detail: what, Err: err}
}

// checkJSONType accepts application/json, or the media type document when
// it is not empty, with no parameter but an optional charset of utf-8.
func checkJSONType(ct, document string) error {
	refuse := &Error{Code: problem.UnsupportedMedia, Detail: "send the body as application/json (charset utf-8, if named)"}
	if document != "" {
		refuse.Detail = "send the body as application/json or " + document + " (charset utf-8, if named)"
	}
	if ct == "" {
		return refuse
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" && (document == "" || mt != document) {
		return refuse
	}
	for name, value := range params {
		if name != "charset" || !strings.EqualFold(value, "utf-8") {
			return refuse
		}
	}
	return nil
}
