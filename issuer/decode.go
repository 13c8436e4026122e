package issuer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/reputation"
)

// maxJSONDepth bounds the nesting of any request body.
const maxJSONDepth = 8

// Decode decodes one JSON object from body into v, a pointer to a request
// struct, the one way every HTTP route and MCP tool reads its input.
//
// The body is parsed strictly with [cjson] first: over limit bytes, not
// JSON, invalid UTF-8, a lone surrogate escape, an integer beyond ±(2^53−1),
// nesting deeper than 8, a member named twice or data after the object are
// refused. The object is then bound to v by exact member name, the name in
// each field's json tag: a member that differs from every name (case
// included), or that repeats another up to case, is refused, as is a value
// of the wrong JSON type. A member is optional when its field is a
// pointer or tagged omitempty: null stands for it absent, and is refused
// (json_wrong_type) for a required member. A field of type
// [json.RawMessage] takes a value of any JSON type, null included, as its
// bytes: for a value another parser reads, such as a passport bundle; the
// nesting bound covers it too. A [reputation.Milli] takes a number whose
// value is a whole number of thousandths, however it is written (0.5,
// 0.500, 5e-1); another value is invalid_request. Every refusal is an
// [*Error] with a json_... code (body_too_large for the bound) and a
// message that names the member as the caller wrote it, never a Go type.
func Decode(body []byte, limit int, v any) error {
	if len(body) > limit {
		return Errorf(CodeTooLarge, "the request body exceeds %d bytes", limit)
	}
	if len(body) == 0 {
		return Errorf(CodeJSONMalformed, "the request body is empty")
	}
	doc, err := cjson.Parse(body, cjson.Options{MaxDepth: maxJSONDepth})
	if err != nil {
		return JSONError(err)
	}
	root := doc.Root()
	if root.Kind() != cjson.Object {
		return Errorf(CodeJSONWrongType, "the request body must be a JSON object")
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return &Error{Code: CodeInternal, Message: "an internal error occurred", Err: errors.New("issuer.Decode: v must point to a struct")}
	}
	return bind(root, rv.Elem(), "")
}

// JSONError maps a refusal of the project's strict JSON parser
// (internal/cjson) to the issuer's error with its reason code, so that a
// refusal reads the same wherever the JSON was parsed.
func JSONError(err error) error {
	var ce *cjson.Error
	if !errors.As(err, &ce) {
		return Errorf(CodeJSONMalformed, "the request body is not valid JSON")
	}
	switch ce.Code {
	case cjson.CodeInvalidUTF8:
		return Errorf(CodeJSONInvalidUTF8, "the request body is not valid UTF-8 (at byte %d)", ce.Offset)
	case cjson.CodeLoneSurrogate:
		return Errorf(CodeJSONLoneSurrogate, "the request body holds a lone surrogate escape (at byte %d)", ce.Offset)
	case cjson.CodeDuplicateKey:
		return Errorf(CodeJSONDuplicateKey, "the request body names a member twice (at byte %d)", ce.Offset)
	case cjson.CodeNumberRange:
		return Errorf(CodeJSONNumberRange, "a number is beyond the range JSON readers hold exactly (at byte %d)", ce.Offset)
	case cjson.CodeTooDeep:
		return Errorf(CodeJSONTooDeep, "the request body nests deeper than %d levels", maxJSONDepth)
	case cjson.CodeTrailingData:
		return Errorf(CodeJSONTrailingData, "the request body has data after its JSON object (at byte %d)", ce.Offset)
	}
	return Errorf(CodeJSONMalformed, "the request body is not valid JSON (at byte %d)", ce.Offset)
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	milliType       = reflect.TypeFor[reputation.Milli]()
)

// thousandths reads a JSON number whose value is a whole number of
// thousandths, in any of the forms JSON writes it (0.5, 0.500, 5e-1,
// 500E-3), within ±10^13; ok is false for any other value, such as
// 0.0005.
func thousandths(num string) (m reputation.Milli, ok bool) {
	mant, exp := num, 0
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(num[i+1:], "+"))
		if err != nil || e < -400 || e > 400 {
			return 0, false
		}
		mant, exp = num[:i], e
	}
	r, good := new(big.Rat).SetString(mant)
	if !good {
		return 0, false
	}
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil))
	if exp < 0 {
		r.Quo(r, scale)
	} else {
		r.Mul(r, scale)
	}
	r.Mul(r, big.NewRat(1000, 1))
	if !r.IsInt() || r.Num().CmpAbs(big.NewInt(1e16)) > 0 {
		return 0, false
	}
	return reputation.Milli(r.Num().Int64()), true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// bind stores the JSON value j into the Go value dst; path names j for
// messages, as the caller wrote it.
func bind(j cjson.Value, dst reflect.Value, path string) error {
	if dst.Kind() == reflect.Pointer {
		if j.Kind() == cjson.Null {
			dst.SetZero()
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := bind(j, p.Elem(), path); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	}
	if dst.Type() == rawMessageType {
		dst.SetBytes(bytes.Clone(j.Raw()))
		return nil
	}
	if dst.Type() == milliType {
		if j.Kind() != cjson.Number {
			return wrongType(path, "a number")
		}
		m, ok := thousandths(string(j.Raw()))
		if !ok {
			return Errorf(CodeInvalid, "%s is not valid: not a multiple of 0.001 between -10^13 and 10^13", describe(path))
		}
		dst.SetInt(int64(m))
		return nil
	}
	if dst.CanAddr() && dst.Addr().Type().Implements(unmarshalerType) {
		if j.Kind() != cjson.Number {
			return wrongType(path, "a number")
		}
		if err := dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(j.Raw()); err != nil {
			return Errorf(CodeInvalid, "%s is not valid: %s", describe(path), err.Error())
		}
		return nil
	}
	switch dst.Kind() {
	case reflect.String:
		s, ok := j.Text()
		if !ok {
			return wrongType(path, "a string")
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := j.Bool()
		if !ok {
			return wrongType(path, "true or false")
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int32, reflect.Int64:
		n, ok := j.Int()
		if !ok || dst.OverflowInt(n) {
			return wrongType(path, "an integer")
		}
		dst.SetInt(n)
	case reflect.Slice:
		if j.Kind() != cjson.Array {
			return wrongType(path, "an array")
		}
		out := reflect.MakeSlice(dst.Type(), 0, j.Len())
		i := 0
		for e := range j.Elements() {
			ev := reflect.New(dst.Type().Elem()).Elem()
			if err := bind(e, ev, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
			out = reflect.Append(out, ev)
			i++
		}
		dst.Set(out)
	case reflect.Struct:
		if j.Kind() != cjson.Object {
			return wrongType(path, "an object")
		}
		return bindObject(j, dst, path)
	default:
		return &Error{Code: CodeInternal, Message: "an internal error occurred", Err: errors.New("issuer.Decode: unsupported field kind " + dst.Kind().String())}
	}
	return nil
}

// memberRefuser is implemented by a request object whose unknown members
// are refused with a reason of their own rather than json_unknown_member,
// such as a task context's unknown dimension. path names the member as the
// caller wrote it. refuseMember returns the refusal, which ends the
// binding, or nil to skip the member and bind the others: the object then
// refuses it by its own rules, once bound (a find_agents query names the
// first unknown member in byte order, as its query string does).
type memberRefuser interface {
	refuseMember(path string) error
}

// bindObject binds each member of j to the field of dst whose json tag
// names it exactly.
func bindObject(j cjson.Value, dst reflect.Value, path string) error {
	fields := map[string]reflect.Value{}
	optional := map[string]bool{}
	collectFields(dst, fields, optional)
	// Duplicates are looked for across the whole object first, so that a
	// member repeated in another case is reported as such even when that
	// case is also unknown.
	folded := make(map[string]string, j.Len())
	for k := range j.Members() {
		name, _ := k.Text()
		key := foldName(name)
		if prev, dup := folded[key]; dup {
			return Errorf(CodeJSONDuplicateKey, "%q and %q name the same member", truncate(prev, 40), truncate(name, 40))
		}
		folded[key] = name
	}
	for k, v := range j.Members() {
		name, _ := k.Text()
		f, ok := fields[name]
		if !ok {
			if r, ok := dst.Addr().Interface().(memberRefuser); ok {
				if err := r.refuseMember(memberPath(path, name)); err != nil {
					return err
				}
				continue
			}
			return Errorf(CodeJSONUnknownMember, "unknown member %q", truncate(memberPath(path, name), 80))
		}
		if v.Kind() == cjson.Null && optional[name] && f.Kind() != reflect.Pointer && f.Type() != rawMessageType {
			f.SetZero()
			continue
		}
		if err := bind(v, f, memberPath(path, name)); err != nil {
			return err
		}
	}
	return nil
}

// collectFields maps the exact JSON name of each field of v, embedded
// structs flattened, to the field, and marks in optional the names of the
// fields that are pointers or tagged omitempty: the optional members.
func collectFields(v reflect.Value, into map[string]reflect.Value, optional map[string]bool) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			collectFields(v.Field(i), into, optional)
			continue
		}
		if !sf.IsExported() || name == "" {
			continue
		}
		into[name] = v.Field(i)
		optional[name] = sf.Type.Kind() == reflect.Pointer || slices.Contains(strings.Split(opts, ","), "omitempty")
	}
}

// foldName is the form under which two member names count as the same
// name differing only in case.
func foldName(s string) string { return strings.ToLower(strings.ToUpper(s)) }

func memberPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func describe(path string) string {
	if path == "" {
		return "the value"
	}
	return truncate(path, 80)
}

func wrongType(path, want string) error {
	return Errorf(CodeJSONWrongType, "%s must be %s", describe(path), want)
}
