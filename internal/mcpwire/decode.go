package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/remnant/passportkit/internal/cjson"
)

// Fault is a frame refused by [Decode]: the JSON-RPC error to answer it with
// and the id to answer it under (invalid, that is null, when the frame's id
// could not be read).
type Fault struct {
	ID      jsonrpc.ID
	Code    int64 // jsonrpc.CodeParseError or jsonrpc.CodeInvalidRequest
	Message string
	// Cause is the strict parser's refusal (a *cjson.Error) for a frame
	// that is JSON text outside I-JSON, so that a transport can report its
	// reason code; nil otherwise.
	Cause error
}

// Error returns the fault's message.
func (f *Fault) Error() string { return f.Message }

// Reply is the JSON-RPC error response to a fault. Unlike the SDK's
// encoding of a response, it writes a null id as "id":null, as JSON-RPC 2.0
// requires.
type Reply struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      any            `json:"id"`
	Error   *jsonrpc.Error `json:"error"`
}

// Reply returns the response that answers f.
func (f *Fault) Reply() Reply {
	return Reply{JSONRPC: "2.0", ID: f.ID.Raw(), Error: &jsonrpc.Error{Code: f.Code, Message: f.Message}}
}

func parseError(format string, args ...any) *Fault {
	return &Fault{Code: jsonrpc.CodeParseError, Message: "parse error: " + fmt.Sprintf(format, args...)}
}

func invalid(id jsonrpc.ID, format string, args ...any) *Fault {
	return &Fault{ID: id, Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
}

// members a message may carry.
var members = map[string]bool{"jsonrpc": true, "id": true, "method": true, "params": true, "result": true, "error": true}

// Decode decodes one frame. It returns a *jsonrpc.Request (a call when its
// ID is valid, else a notification) or a *jsonrpc.Response, or a [*Fault].
//
// The frame is parsed once with the project's strict parser (internal/cjson):
// text that is not JSON, not UTF-8 or followed by more data is a parse error;
// JSON outside I-JSON (a duplicate member name at any depth, a lone
// surrogate, an integer beyond ±(2^53−1), nesting deeper than 32) is an
// invalid request.
func Decode(frame []byte) (jsonrpc.Message, error) {
	doc, err := cjson.Parse(frame, cjson.Options{IndexDepth: 2})
	if err != nil {
		var cerr *cjson.Error
		if !errors.As(err, &cerr) {
			return nil, parseError("%v", err)
		}
		switch cerr.Code {
		case cjson.CodeSyntax, cjson.CodeInvalidUTF8, cjson.CodeTrailingData:
			return nil, parseError("%s at byte %d", cerr.Code, cerr.Offset)
		}
		// cjson stops at the first fault; a frame that is not JSON text
		// further on is a parse error all the same.
		if !utf8.Valid(frame) {
			return nil, parseError("%s", cjson.CodeInvalidUTF8)
		}
		if !json.Valid(frame) {
			return nil, parseError("%s", cjson.CodeSyntax)
		}
		f := invalid(jsonrpc.ID{}, "%s at byte %d", cerr.Code, cerr.Offset)
		f.Cause = cerr
		return nil, f
	}
	root := doc.Root()
	switch root.Kind() {
	case cjson.Object:
	case cjson.Array:
		return nil, invalid(jsonrpc.ID{}, "batches are not supported; send one message per frame")
	default:
		return nil, invalid(jsonrpc.ID{}, "a message must be a JSON object")
	}
	m := make(map[string]cjson.Value)
	for k, v := range root.Members() {
		name, _ := k.Text()
		m[name] = v // names are unique: cjson refuses duplicates
	}
	id, idErr := readID(m)
	if idErr != "" {
		return nil, invalid(jsonrpc.ID{}, "%s", idErr)
	}
	for name := range m {
		if !members[name] {
			return nil, invalid(id, "unknown member %q", truncate(name))
		}
	}
	if v, ok := m["jsonrpc"]; !ok || string(v.Raw()) != `"2.0"` {
		return nil, invalid(id, `jsonrpc must be "2.0"`)
	}
	if mv, ok := m["method"]; ok {
		method, isString := mv.Text()
		if !isString || method == "" {
			return nil, invalid(id, "method must be a non-empty string")
		}
		if _, ok := m["result"]; ok {
			return nil, invalid(id, "a request has no result")
		}
		if _, ok := m["error"]; ok {
			return nil, invalid(id, "a request has no error")
		}
		var params json.RawMessage
		if p, ok := m["params"]; ok {
			switch p.Kind() {
			case cjson.Null:
			case cjson.Object, cjson.Array:
				params = clone(p.Raw())
			default:
				return nil, invalid(id, "params must be an object or an array")
			}
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: params}, nil
	}
	if !id.IsValid() {
		return nil, invalid(id, "a message without a method is a response, and a response needs an id")
	}
	if _, ok := m["params"]; ok {
		return nil, invalid(id, "a response has no params")
	}
	result, hasResult := m["result"]
	errValue, hasErr := m["error"]
	if hasResult == hasErr {
		return nil, invalid(id, "a response has exactly one of result and error")
	}
	if hasResult {
		return &jsonrpc.Response{ID: id, Result: clone(result.Raw())}, nil
	}
	e, ok := readError(errValue)
	if !ok {
		return nil, invalid(id, "error must be an object with an integer code, a string message and optional data")
	}
	return &jsonrpc.Response{ID: id, Error: e}, nil
}

// readID reads the id member: the zero ID when absent, or a reason it is
// not a valid id.
func readID(m map[string]cjson.Value) (jsonrpc.ID, string) {
	v, ok := m["id"]
	if !ok {
		return jsonrpc.ID{}, ""
	}
	switch v.Kind() {
	case cjson.String:
		s, _ := v.Text()
		id, _ := jsonrpc.MakeID(s)
		return id, ""
	case cjson.Number:
		// cjson holds integers within ±(2^53−1), which the SDK's float64
		// ids keep exactly.
		if n, ok := v.Int(); ok {
			id, _ := jsonrpc.MakeID(float64(n))
			return id, ""
		}
		return jsonrpc.ID{}, fmt.Sprintf("id must be a string or an integer, not %s", truncate(string(v.Raw())))
	case cjson.Null:
		return jsonrpc.ID{}, "id must be a string or an integer, not null"
	}
	return jsonrpc.ID{}, "id must be a string or an integer"
}

// readError reads a response's error object, with the same exact member
// names as a message.
func readError(v cjson.Value) (*jsonrpc.Error, bool) {
	if v.Kind() != cjson.Object {
		return nil, false
	}
	var e jsonrpc.Error
	var hasCode, hasMessage bool
	for k, val := range v.Members() {
		name, _ := k.Text()
		switch name {
		case "code":
			e.Code, hasCode = val.Int()
		case "message":
			e.Message, hasMessage = val.Text()
		case "data":
			e.Data = clone(val.Raw())
		default:
			return nil, false
		}
	}
	return &e, hasCode && hasMessage
}

// clone copies a slice of the frame, which the caller may reuse.
func clone(b []byte) json.RawMessage { return bytes.Clone(b) }

// truncate shortens text echoed back in a fault.
func truncate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}
