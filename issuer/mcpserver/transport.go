package mcpserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/internal/httpbody"
	"github.com/remnant/passportkit/internal/mcpwire"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
)

// methods are the methods an MCP server receives (revision 2025-11-25), true
// for requests and false for notifications: the SDK's own server table
// without its drafts. A request for any other method is answered -32601.
var methods = map[string]bool{
	"initialize": true, "ping": true,
	"tools/list": true, "tools/call": true,
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"completion/complete": true, "logging/setLevel": true,
	"notifications/initialized": false, "notifications/cancelled": false,
	"notifications/progress": false, "notifications/roots/list_changed": false,
}

// Transport is the MCP endpoint that [Handler] returns. It reads each POST
// to /mcp as one frame with [mcpwire.Decode] before the SDK's handler sees
// it, so that every transport error is answered the same way: an HTTP error
// status with RFC 9457 problem details that also carry the JSON-RPC error
// response members (jsonrpc, id, error). A well-formed request for an
// unknown method is not a transport error: it gets a JSON-RPC -32601
// response with status 200, like any other answer.
type Transport struct {
	next http.Handler
	// bounds holds the message bound of each tool whose calls may exceed
	// MaxMessage, and largest the largest bound of all.
	bounds  map[string]int
	largest int
	// bodyTimeout bounds the arrival of a body; zero leaves it to the
	// server's deadlines.
	bodyTimeout time.Duration
}

// ServeHTTP checks the method, the media type, the size and the frame, then
// passes the request on with its buffered body.
func (t Transport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	none := jsonrpc.ID{}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeProblem(w, r, issuer.Errorf(issuer.CodeMethodNotAllowed, "%s is not allowed on %s; send each JSON-RPC message with POST", r.Method, r.URL.Path),
			&mcpwire.Fault{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: use POST"})
		return
	}
	if !jsonMediaType(r.Header.Get("Content-Type")) {
		writeProblem(w, r, issuer.Errorf(issuer.CodeUnsupportedMedia, "send the message as application/json (charset utf-8, if any)"),
			&mcpwire.Fault{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the body is not application/json"})
		return
	}
	body, err := httpbody.Read(w, r, httpbody.Options{Limit: int64(t.largest), Timeout: t.bodyTimeout})
	if be, ok := errors.AsType[*httpbody.Error](err); ok {
		if be.Code == problem.TooLarge {
			t.tooLarge(w, r)
			return
		}
		writeProblem(w, r, issuer.Errorf(be.Code, "%s", be.Detail), &mcpwire.Fault{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + be.Detail})
		return
	} else if err != nil {
		writeProblem(w, r, err, &mcpwire.Fault{Code: jsonrpc.CodeInternalError, Message: "internal error"})
		return
	}
	// The body is decoded: the SDK's handler reads it as it is.
	r.Header.Del("Content-Encoding")
	msg, err := mcpwire.Decode(body)
	if len(body) > MaxMessage && (err != nil || len(body) > t.bound(msg)) {
		// Class 1 of SPEC.md §14 comes first: a frame over MaxMessage is
		// over its bound unless it is a call of a tool with a larger one.
		t.tooLarge(w, r)
		return
	}
	if fault, ok := errors.AsType[*mcpwire.Fault](err); ok {
		refusal := error(issuer.Errorf(issuer.CodeInvalid, "%s", fault.Message))
		if fault.Cause != nil {
			refusal = issuer.JSONError(fault.Cause)
		}
		writeProblem(w, r, refusal, fault)
		return
	} else if err != nil {
		writeProblem(w, r, err, &mcpwire.Fault{Code: jsonrpc.CodeInternalError, Message: "internal error"})
		return
	}
	id := none
	if req, ok := msg.(*jsonrpc.Request); ok {
		id = req.ID
		call, known := methods[req.Method]
		switch {
		case !known && req.IsCall():
			writeReply(w, mcpwire.Reply{JSONRPC: "2.0", ID: req.ID.Raw(), Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + req.Method}})
			return
		case !known:
			w.WriteHeader(http.StatusAccepted) // an unknown notification is ignored
			return
		case call && !req.IsCall():
			f := &mcpwire.Fault{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + req.Method + " is a request and needs an id"}
			writeProblem(w, r, issuer.Errorf(issuer.CodeInvalid, "%s", f.Message), f)
			return
		case !call && req.IsCall():
			f := &mcpwire.Fault{ID: req.ID, Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + req.Method + " is a notification and takes no id"}
			writeProblem(w, r, issuer.Errorf(issuer.CodeInvalid, "%s", f.Message), f)
			return
		}
	} else if resp, ok := msg.(*jsonrpc.Response); ok {
		id = resp.ID
	}
	r = r.WithContext(withNeeded(r.Context(), msg))
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	pw := &problemWriter{ResponseWriter: w, r: r, id: id}
	t.next.ServeHTTP(pw, r)
	pw.finish()
}

// Refuse answers a request that the HTTP layer in front of the endpoint
// refused before passing it on (no valid key, a rate limit) as the endpoint
// answers its own transport errors: problem details of err that also carry
// a JSON-RPC error response, -32600 (-32603 for a fault on the server),
// under the id of the message when the body, read within [MaxMessage], has
// one, else null. Headers already set on w (WWW-Authenticate, Retry-After)
// go with it.
func (t Transport) Refuse(w http.ResponseWriter, r *http.Request, err error) {
	f := &mcpwire.Fault{ID: t.messageID(w, r), Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + issuer.ErrorMessage(err)}
	if issuer.ErrorCode(err) == issuer.CodeInternal {
		f.Code, f.Message = jsonrpc.CodeInternalError, "internal error"
	}
	writeProblem(w, r, err, f)
}

// messageID returns the id of the message r posts, if it is JSON read
// within MaxMessage and the id is valid (as a refusal's reply would name
// it); else the zero ID, written null.
func (t Transport) messageID(w http.ResponseWriter, r *http.Request) jsonrpc.ID {
	if r.Method != http.MethodPost || !jsonMediaType(r.Header.Get("Content-Type")) {
		return jsonrpc.ID{}
	}
	body, err := httpbody.Read(w, r, httpbody.Options{Limit: MaxMessage, Timeout: t.bodyTimeout})
	if err != nil {
		return jsonrpc.ID{}
	}
	msg, err := mcpwire.Decode(body)
	if fault, ok := errors.AsType[*mcpwire.Fault](err); ok {
		return fault.ID
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return m.ID
	case *jsonrpc.Response:
		return m.ID
	}
	return jsonrpc.ID{}
}

// bound returns the bound of a decoded message: the tool's own bound for a
// tools/call request (with an id) whose params name, exactly, a tool that
// has one, and MaxMessage for any other message.
func (t Transport) bound(msg jsonrpc.Message) int {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() || req.Method != "tools/call" || len(t.bounds) == 0 {
		return MaxMessage
	}
	name, ok := toolName(req.Params)
	if !ok {
		return MaxMessage
	}
	return cmp.Or(t.bounds[name], MaxMessage)
}

// toolName returns the value of the member "name" of params when it is a
// string. The frame is already read strictly (no duplicate names, valid
// UTF-8), so this only finds the member. Clients write name before the
// arguments: a first member named name is read without parsing the rest;
// otherwise params is parsed whole.
func toolName(params json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(params))
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		if tok, err := dec.Token(); err == nil && tok == "name" {
			tok, err := dec.Token()
			name, ok := tok.(string)
			return name, err == nil && ok
		}
	}
	doc, err := cjson.Parse(params, cjson.Options{IndexDepth: 1})
	if err != nil || doc.Root().Kind() != cjson.Object {
		return "", false
	}
	v, ok := doc.Root().Get("name")
	if !ok {
		return "", false
	}
	return v.Text()
}

// tooLarge answers a message over its bound (class 1 of SPEC.md §14): 413,
// -32600, id null.
func (t Transport) tooLarge(w http.ResponseWriter, r *http.Request) {
	detail := fmt.Sprintf("an MCP message may not exceed %d bytes after decompression", MaxMessage)
	if names := slices.Sorted(maps.Keys(t.bounds)); len(names) > 0 {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = fmt.Sprintf("%d for a call of %s", t.bounds[n], n)
		}
		detail += " (" + strings.Join(parts, ", ") + ")"
	}
	writeProblem(w, r, issuer.Errorf(issuer.CodeTooLarge, "%s", detail),
		&mcpwire.Fault{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the message is too large"})
}

// jsonMediaType reports whether a Content-Type is application/json, with at
// most a charset parameter naming UTF-8.
func jsonMediaType(ct string) bool {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return false
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return false
		}
	}
	return true
}

// rpcProblem is problem details carrying a JSON-RPC error response as
// extension members, for clients of either kind.
type rpcProblem struct {
	problem.Details
	JSONRPC string         `json:"jsonrpc"`
	ID      any            `json:"id"`
	Error   *jsonrpc.Error `json:"error"`
}

// writeProblem answers a transport error.
func writeProblem(w http.ResponseWriter, r *http.Request, err error, f *mcpwire.Fault) {
	reply := f.Reply()
	p := rpcProblem{Details: problem.New(issuer.ErrorCode(err), issuer.ErrorMessage(err), r.URL.Path), JSONRPC: reply.JSONRPC, ID: reply.ID, Error: reply.Error}
	writeProblemBody(w, p)
}

func writeProblemBody(w http.ResponseWriter, p rpcProblem) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	json.NewEncoder(w).Encode(p)
}

// writeReply writes a JSON-RPC response with status 200.
func writeReply(w http.ResponseWriter, reply mcpwire.Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	json.NewEncoder(w).Encode(reply)
}

// statusCodes maps the error statuses the SDK's handler writes as plain
// text to the issuer's codes.
var statusCodes = map[int]issuer.Code{
	http.StatusBadRequest:            issuer.CodeInvalid,
	http.StatusUnauthorized:          issuer.CodeUnauthorized,
	http.StatusNotFound:              issuer.CodeNotFound,
	http.StatusMethodNotAllowed:      issuer.CodeMethodNotAllowed,
	http.StatusRequestEntityTooLarge: issuer.CodeTooLarge,
	http.StatusUnsupportedMediaType:  issuer.CodeUnsupportedMedia,
}

// problemWriter turns an error status the SDK's handler writes as plain
// text (a missing Accept header, an unsupported MCP-Protocol-Version,
// missing params) or as a bare JSON-RPC error (a header that does not match
// the body) into problem details with the JSON-RPC members, under the
// message's id. Other responses pass through.
type problemWriter struct {
	http.ResponseWriter
	r      *http.Request
	id     jsonrpc.ID
	status int             // the status of a plain-text error, else 0
	text   strings.Builder // its text, up to maxDetail bytes
}

func (p *problemWriter) WriteHeader(status int) {
	ct := p.Header().Get("Content-Type")
	if status < 400 || p.status != 0 || (ct != "" && !strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "application/json")) {
		p.ResponseWriter.WriteHeader(status)
		return
	}
	p.status = status
}

// Write keeps the plain-text body of an error for its detail.
func (p *problemWriter) Write(b []byte) (int, error) {
	if p.status == 0 {
		return p.ResponseWriter.Write(b)
	}
	if room := maxDetail - p.text.Len(); room > 0 {
		p.text.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

// maxDetail bounds the SDK's text kept for a problem's detail.
const maxDetail = 1 << 10

// finish writes the problem details of a plain-text error, if there was one.
func (p *problemWriter) finish() {
	if p.status == 0 {
		return
	}
	text := strings.TrimSpace(strings.ToValidUTF8(p.text.String(), ""))
	code, ok := statusCodes[p.status]
	f := &mcpwire.Fault{ID: p.id, Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + text}
	// The SDK answers some refusals with a JSON-RPC error response: keep
	// its code and message.
	var sdk struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal([]byte(text), &sdk) == nil && sdk.Error != nil {
		f.Code, f.Message, text = sdk.Error.Code, sdk.Error.Message, sdk.Error.Message
	}
	switch {
	case ok:
	case p.status < 500:
		code = issuer.CodeInvalid
	default:
		code, f.Code, f.Message, text = issuer.CodeInternal, jsonrpc.CodeInternalError, "internal error", ""
	}
	reply := f.Reply()
	pr := rpcProblem{Details: problem.New(code, text, p.r.URL.Path), JSONRPC: reply.JSONRPC, ID: reply.ID, Error: reply.Error}
	pr.Status = p.status
	p.Header().Del("Content-Length")
	writeProblemBody(p.ResponseWriter, pr)
}

// Flush passes a flush on, for event streams.
func (p *problemWriter) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (p *problemWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }
