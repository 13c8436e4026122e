package mcpwire

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		frame  string
		code   int64 // 0 when the frame is accepted
		id     any   // the id of the message or of the fault
		method string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, int64(1), "ping"},
		{` {"method":"tools/list","params":{},"id":"a","jsonrpc":"2.0"} `, 0, "a", "tools/list"},
		{`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, 0, int64(-1<<53 + 1), "ping"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`, 0, nil, "notifications/initialized"},
		{`{"jsonrpc":"2.0","id":"r","result":{}}`, 0, "r", ""},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no","data":[1]}}`, 0, int64(2), ""},

		{``, jsonrpc.CodeParseError, nil, ""},
		{`{"jsonrpc":"2.0","id":1,"method": }`, jsonrpc.CodeParseError, nil, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, jsonrpc.CodeParseError, nil, ""},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xc3\"}", jsonrpc.CodeParseError, nil, ""},
		// Not JSON text wins over not I-JSON, wherever each fault lies.
		{`{"a":1,"a":1,`, jsonrpc.CodeParseError, nil, ""},
		{"{\"a\":1,\"a\":\"\xff\"}", jsonrpc.CodeParseError, nil, ""},
		{`{"a":9007199254740993} x`, jsonrpc.CodeParseError, nil, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1e400]}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`[]`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`true`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":3,"jsonrpc":"2.0","method":"ping"}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"a":1,"a":2}}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"a":"\ud800"}}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","params":[` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `]}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","extra":1}`, jsonrpc.CodeInvalidRequest, int64(3), ""},
		{`{"JSONRPC":"2.0","id":3,"method":"ping"}`, jsonrpc.CodeInvalidRequest, int64(3), ""},
		{`{"jsonrpc":"2.0 ","id":3,"method":"ping"}`, jsonrpc.CodeInvalidRequest, int64(3), ""},
		{`{"jsonrpc":"2.0","id":3,"method":""}`, jsonrpc.CodeInvalidRequest, int64(3), ""},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","params":"x"}`, jsonrpc.CodeInvalidRequest, int64(3), ""},
		{`{"jsonrpc":"2.0","id":3,"method":"ping","result":{}}`, jsonrpc.CodeInvalidRequest, int64(3), ""},
		{`{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, nil, ""},
		{`{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}`, jsonrpc.CodeInvalidRequest, int64(4), ""},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":1.5,"message":"x"}}`, jsonrpc.CodeInvalidRequest, int64(4), ""},
		{`{"jsonrpc":"2.0","id":4,"error":{"message":"x"}}`, jsonrpc.CodeInvalidRequest, int64(4), ""},
	} {
		msg, err := Decode([]byte(tc.frame))
		if tc.code != 0 {
			var f *Fault
			if !errors.As(err, &f) || f.Code != tc.code || f.ID.Raw() != tc.id {
				t.Errorf("%s: %v, %#v; want fault %d with id %v", tc.frame, msg, err, tc.code, tc.id)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.frame, err)
			continue
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.ID.Raw() != tc.id || m.Method != tc.method {
				t.Errorf("%s: request %+v", tc.frame, m)
			}
		case *jsonrpc.Response:
			if m.ID.Raw() != tc.id || tc.method != "" {
				t.Errorf("%s: response %+v", tc.frame, m)
			}
		}
	}
}

// TestReplyNullID: a fault without a readable id is answered with "id":null,
// which JSON-RPC requires and the SDK's encoder would omit.
func TestReplyNullID(t *testing.T) {
	_, err := Decode([]byte(`42`))
	b, _ := json.Marshal(err.(*Fault).Reply())
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a message must be a JSON object"}}`; string(b) != want {
		t.Fatalf("%s\nwant %s", b, want)
	}
}

// FuzzDecode: Decode never panics; a frame is a parse error exactly when it
// is not UTF-8 JSON; whatever it accepts, the SDK decodes to the same
// message, and re-encoding it decodes to the same message again; every
// fault's reply is valid JSON under a valid or null id.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"t","arguments":{"a":[1,2]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":5,"result":{"ok":true}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"m","data":null}}`,
		`{"jsonrpc":"2.0","id":1,"method": }`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[]`, `42`, `null`, `"s"`, ``,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"id":1,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,"method":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, err := Decode(frame)
		if err != nil {
			var fault *Fault
			if !errors.As(err, &fault) {
				t.Fatalf("not a fault: %v", err)
			}
			wantParse := !utf8.Valid(frame) || !json.Valid(frame)
			if (fault.Code == jsonrpc.CodeParseError) != wantParse || (fault.Code != jsonrpc.CodeParseError && fault.Code != jsonrpc.CodeInvalidRequest) {
				t.Fatalf("code %d for %q", fault.Code, frame)
			}
			b, err := json.Marshal(fault.Reply())
			if err != nil || !json.Valid(b) {
				t.Fatalf("reply %q: %v", b, err)
			}
			return
		}
		sdk, err := jsonrpc.DecodeMessage(frame)
		if err != nil {
			t.Fatalf("accepted %q, which the SDK refuses: %v", frame, err)
		}
		if !sameMessage(msg, sdk) {
			t.Fatalf("%q: %#v, the SDK reads %#v", frame, msg, sdk)
		}
		enc, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("encoding %#v: %v", msg, err)
		}
		again, err := Decode(enc)
		if err != nil || !sameMessage(msg, again) {
			t.Fatalf("%q re-encoded as %q: %#v, %v", frame, enc, again, err)
		}
	})
}

// sameMessage compares messages by their wire meaning: the SDK decodes
// absent params as nil and keeps other raw members as written, so raw
// members are compared as JSON values.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && sameJSON(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || !sameJSON(a.Result, b.Result) || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		if a.Error == nil {
			return true
		}
		ea, eb := a.Error.(*jsonrpc.Error), b.Error.(*jsonrpc.Error)
		return ea.Code == eb.Code && ea.Message == eb.Message && sameJSON(ea.Data, eb.Data)
	}
	return false
}

func sameJSON(a, b json.RawMessage) bool {
	if string(a) == "null" {
		a = nil
	}
	if string(b) == "null" {
		b = nil
	}
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
