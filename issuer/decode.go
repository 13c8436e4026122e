package issuer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of any request body.
const maxJSONDepth = 8

// decodeStrict decodes one JSON object from body into v. It refuses input
// over limit bytes, invalid UTF-8, duplicate member names, nesting deeper
// than maxJSONDepth, unknown fields and trailing data, each with a message
// for the caller.
func decodeStrict(body []byte, limit int, v any) error {
	if len(body) > limit {
		return Errorf(CodeTooLarge, "the request body exceeds %d bytes", limit)
	}
	if !utf8.Valid(body) {
		return Errorf(CodeInvalid, "the request body is not valid UTF-8")
	}
	if err := checkShape(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(CodeInvalid, "the request body is not valid: %s", describeJSONError(err))
	}
	return nil
}

// checkShape walks the tokens of body: one object, no duplicate names at any
// level, bounded depth, nothing after the value.
func checkShape(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type frame struct {
		object bool
		names  map[string]bool
		key    bool // the next token of an object is a name
	}
	var stack []*frame
	first := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if first {
				return Errorf(CodeInvalid, "the request body is empty")
			}
			return nil
		}
		if err != nil {
			return Errorf(CodeInvalid, "the request body is not valid JSON: %s", describeJSONError(err))
		}
		if first {
			if d, ok := tok.(json.Delim); !ok || d != '{' {
				return Errorf(CodeInvalid, "the request body must be a JSON object")
			}
		} else if len(stack) == 0 {
			return Errorf(CodeInvalid, "the request body has data after its JSON object")
		}
		first = false
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			name := tok.(string)
			if top.names[name] {
				return Errorf(CodeInvalid, "the member %q appears twice", truncate(name, 40))
			}
			top.names[name] = true
			top.key = false
			continue
		}
		if top != nil && top.object {
			top.key = true
		}
		switch d, _ := tok.(json.Delim); d {
		case '{', '[':
			if len(stack) == maxJSONDepth {
				return Errorf(CodeInvalid, "the request body nests deeper than %d levels", maxJSONDepth)
			}
			stack = append(stack, &frame{object: d == '{', names: map[string]bool{}, key: d == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		}
	}
}

// describeJSONError turns a decoding error into a short phrase without Go
// type names.
func describeJSONError(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field != "" {
			return "the member " + te.Field + " has the wrong type"
		}
		return "a value has the wrong type"
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return "syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown member " + name
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return strings.TrimPrefix(msg, "json: ")
}
