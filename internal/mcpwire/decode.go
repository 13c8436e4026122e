package mcpwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxSafeID is the largest integer id magnitude accepted: the SDK holds
// numeric ids as float64 on the way in, exact up to 2^53.
const maxSafeID = 1 << 53

// Fault is a frame refused by [Decode]: the JSON-RPC error to answer it with
// and the id to answer it under (invalid, that is null, when the frame's id
// could not be read).
type Fault struct {
	ID      jsonrpc.ID
	Code    int64 // jsonrpc.CodeParseError or jsonrpc.CodeInvalidRequest
	Message string
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
func Decode(frame []byte) (jsonrpc.Message, error) {
	if !utf8.Valid(frame) {
		return nil, parseError("the frame is not valid UTF-8")
	}
	if !json.Valid(frame) {
		return nil, parseError("the frame is not valid JSON")
	}
	body := bytes.TrimLeft(frame, " \t\r\n")
	switch body[0] {
	case '{':
	case '[':
		return nil, invalid(jsonrpc.ID{}, "batches are not supported; send one message per frame")
	default:
		return nil, invalid(jsonrpc.ID{}, "a message must be a JSON object")
	}
	m, dup, err := objectMembers(body)
	if err != nil { // unreachable after json.Valid, kept as a guard
		return nil, parseError("%v", err)
	}
	id, idErr := readID(m)
	if idErr != "" {
		return nil, invalid(jsonrpc.ID{}, "%s", idErr)
	}
	if dup == "id" {
		return nil, invalid(jsonrpc.ID{}, "member \"id\" appears more than once")
	}
	if dup != "" {
		return nil, invalid(id, "member %q appears more than once", truncate(dup))
	}
	for name := range m {
		if !members[name] {
			return nil, invalid(id, "unknown member %q", truncate(name))
		}
	}
	if v, ok := m["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, invalid(id, `jsonrpc must be "2.0"`)
	}
	if raw, ok := m["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil || method == "" {
			return nil, invalid(id, "method must be a non-empty string")
		}
		if _, ok := m["result"]; ok {
			return nil, invalid(id, "a request has no result")
		}
		if _, ok := m["error"]; ok {
			return nil, invalid(id, "a request has no error")
		}
		params := m["params"]
		switch {
		case params == nil || string(params) == "null":
			params = nil
		case params[0] != '{' && params[0] != '[':
			return nil, invalid(id, "params must be an object or an array")
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
	rawErr, hasErr := m["error"]
	if hasResult == hasErr {
		return nil, invalid(id, "a response has exactly one of result and error")
	}
	if hasResult {
		return &jsonrpc.Response{ID: id, Result: result}, nil
	}
	var wire struct {
		Code    *int64          `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	d := json.NewDecoder(bytes.NewReader(rawErr))
	d.DisallowUnknownFields()
	if rawErr[0] != '{' || d.Decode(&wire) != nil || wire.Code == nil || wire.Message == nil {
		return nil, invalid(id, "error must be an object with an integer code and a message")
	}
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: *wire.Code, Message: *wire.Message, Data: wire.Data}}, nil
}

// objectMembers returns the members of a JSON object by their exact names,
// and the name of the first member that appears twice, if any.
func objectMembers(obj []byte) (map[string]json.RawMessage, string, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	if _, err := d.Token(); err != nil { // {
		return nil, "", err
	}
	m := make(map[string]json.RawMessage)
	var dup string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, "", err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, "", err
		}
		if _, seen := m[name]; seen && dup == "" {
			dup = name
		}
		m[name] = v
	}
	return m, dup, nil
}

// readID reads the id member: the zero ID when absent, or a reason it is
// not a valid id.
func readID(m map[string]json.RawMessage) (jsonrpc.ID, string) {
	raw, ok := m["id"]
	if !ok {
		return jsonrpc.ID{}, ""
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, "id is not a valid string"
		}
		id, _ := jsonrpc.MakeID(s)
		return id, ""
	case 'n':
		return jsonrpc.ID{}, "id must be a string or an integer, not null"
	case '{', '[', 't', 'f':
		return jsonrpc.ID{}, "id must be a string or an integer"
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > maxSafeID || n < -maxSafeID {
		return jsonrpc.ID{}, fmt.Sprintf("id must be a string or an integer of at most 2^53 in magnitude, not %s", truncate(string(raw)))
	}
	id, _ := jsonrpc.MakeID(float64(n))
	return id, ""
}

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
