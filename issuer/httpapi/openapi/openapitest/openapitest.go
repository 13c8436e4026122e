// Package openapitest checks real HTTP exchanges against the issuer's
// OpenAPI document, for the tests of any package that talks to the API.
//
// [Validator.Transport] wraps a client's transport so that every request a
// test sends, and every response it gets, is checked with
// libopenapi-validator (OpenAPI 3.1, JSON Schema 2020-12); a mismatch fails
// the test. The rules, applied by [Validator.Check]:
//
//   - Every response must be documented: its status for the operation, its
//     media type for that status, its body against the schema, and the
//     headers the document names.
//   - A request the document refuses (an unknown member, a missing
//     parameter, a value out of its bounds, no bearer key where one is
//     required) must be refused: a 4xx answer. A server that accepts what
//     its document says it refuses has drifted from it.
//   - A request the document accepts may still be refused for a rule the
//     document cannot state (self-validation, a reused idempotency key):
//     only the answer's shape is checked.
//   - A request for a path or method the document does not describe must be
//     answered 404 or 405 with problem details.
//
// Gzip request bodies are checked decompressed, as the server reads them; a
// HEAD request is checked as the GET it mirrors, without a body.
package openapitest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/remnant/passportkit/issuer/httpapi/openapi"
)

// maxInflated bounds a gzip request body decompressed for checking; a body
// that inflates further is one the document refuses (the server's own
// bounds are far smaller).
const maxInflated = 4 << 20

// Validator checks exchanges against one OpenAPI document. It is safe for
// concurrent use.
type Validator struct {
	mu      sync.Mutex
	v       validator.Validator
	schemas schema_validation.SchemaValidator
	problem *base.Schema
	// head checks the answers to HEAD requests: their status and headers,
	// as for GET, without a body. Built at the first HEAD.
	head func() (validator.Validator, error)
}

// New returns a validator for the OpenAPI 3.1 document doc, which must
// define components.schemas.Problem (the body of 404 and 405 answers to
// undocumented paths and methods).
func New(doc []byte) (*Validator, error) {
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("openapitest: parse the document: %w", err)
	}
	v, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		return nil, fmt.Errorf("openapitest: build the validator: %w", errors.Join(errs...))
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		return nil, fmt.Errorf("openapitest: the document is not valid OpenAPI: %w", joinValidation(verrs))
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("openapitest: build the model: %w", err)
	}
	var problem *base.Schema
	if m.Model.Components != nil && m.Model.Components.Schemas != nil {
		if p, ok := m.Model.Components.Schemas.Get("Problem"); ok {
			problem = p.Schema()
		}
	}
	if problem == nil {
		return nil, errors.New("openapitest: the document defines no components.schemas.Problem")
	}
	schemas := schema_validation.NewSchemaValidator()
	if err := compileComponents(schemas, m.Model.Components); err != nil {
		return nil, err
	}
	head := sync.OnceValues(func() (validator.Validator, error) {
		v, errs := validator.NewValidator(d, config.WithoutResponseBodyValidation())
		return v, errors.Join(errs...)
	})
	return &Validator{v: v, schemas: schemas, problem: problem, head: head}, nil
}

// compileComponents compiles every schema of the document's components,
// and the schema of every parameter there, as the validator compiles
// them for an exchange: a schema the JSON Schema engine cannot compile
// (a pattern Go's regexp refuses, such as a repeat count over 1,000) is
// then found when the validator is built, not only when a test happens to
// send or receive what it describes.
func compileComponents(schemas schema_validation.SchemaValidator, c *v3.Components) error {
	if c == nil {
		return nil
	}
	var errs []error
	compile := func(what string, s *base.Schema) {
		if ok, verrs := schemas.ValidateSchemaBytes(s, nil); !ok {
			errs = append(errs, fmt.Errorf("%s: %w", what, joinValidation(verrs)))
		}
	}
	if c.Schemas != nil {
		for name, p := range c.Schemas.FromOldest() {
			compile("components.schemas."+name, p.Schema())
		}
	}
	if c.Parameters != nil {
		for name, p := range c.Parameters.FromOldest() {
			if p.Schema != nil {
				compile("components.parameters."+name, p.Schema.Schema())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("openapitest: a schema does not compile: %w", errors.Join(errs...))
	}
	return nil
}

var issuerDocument = sync.OnceValues(func() (*Validator, error) { return New(openapi.Document()) })

// Issuer returns the validator of the issuer's embedded document, built
// once per test binary.
func Issuer(t testing.TB) *Validator {
	t.Helper()
	v, err := issuerDocument()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Check checks one exchange: req was sent with the body reqBody (as sent,
// before any decompression) and answered with res, whose body is resBody.
// Neither body is read from req or res. It returns why the exchange does
// not match the document, or nil.
func (v *Validator) Check(req *http.Request, reqBody []byte, res *http.Response, resBody []byte) error {
	vreq, inflateErr := validationRequest(req, reqBody)
	vres := *res
	vres.Body = io.NopCloser(bytes.NewReader(resBody))
	vres.Request = vreq

	v.mu.Lock()
	defer v.mu.Unlock()
	reqOK, reqErrs := v.v.ValidateHttpRequestSync(vreq)
	if unrouted(reqErrs) {
		return v.checkUnrouted(res, resBody)
	}
	if inflateErr != nil {
		reqOK, reqErrs = false, append(reqErrs, &liberrors.ValidationError{Message: inflateErr.Error()})
	}
	var problems []string
	if !reqOK && res.StatusCode < 400 {
		problems = append(problems, fmt.Sprintf("the server answered %d to a request the document refuses: %v", res.StatusCode, joinValidation(reqErrs)))
	}
	responses := v.v
	if req.Method == http.MethodHead {
		if len(resBody) > 0 {
			problems = append(problems, "a HEAD response has a body")
		}
		var err error
		if responses, err = v.head(); err != nil {
			return err
		}
	}
	if ok, errs := responses.ValidateHttpResponse(vreq, &vres); !ok {
		problems = append(problems, fmt.Sprintf("the %d response does not match the document: %v", res.StatusCode, joinValidation(errs)))
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// Refuses reports why the document refuses req sent with body (as the
// server reads it: not compressed), or nil when the document accepts it.
// A request for an operation the document does not describe is refused.
func (v *Validator) Refuses(req *http.Request, body []byte) error {
	vreq, err := validationRequest(req, body)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if ok, errs := v.v.ValidateHttpRequestSync(vreq); !ok {
		return joinValidation(errs)
	}
	return nil
}

// checkUnrouted checks the answer to a path or method the document does not
// describe: 404 or 405, as problem details.
func (v *Validator) checkUnrouted(res *http.Response, body []byte) error {
	if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
		return fmt.Errorf("the document describes no such operation, yet the server answered %d", res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		return fmt.Errorf("a %d answer with Content-Type %q, not problem details", res.StatusCode, ct)
	}
	if ok, errs := v.schemas.ValidateSchemaBytes(v.problem, body); !ok {
		return fmt.Errorf("a %d answer that is not problem details: %v", res.StatusCode, joinValidation(errs))
	}
	return nil
}

// validationRequest returns a copy of req carrying body as the server reads
// it: decompressed when it is gzip-encoded, and as a GET for a HEAD.
func validationRequest(req *http.Request, body []byte) (*http.Request, error) {
	r := req.Clone(req.Context())
	if r.Method == http.MethodHead {
		r.Method = http.MethodGet
	}
	var err error
	if strings.EqualFold(strings.TrimSpace(r.Header.Get("Content-Encoding")), "gzip") {
		var inflated []byte
		if inflated, err = inflate(body); err == nil {
			body = inflated
			r.Header.Del("Content-Encoding")
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r, err
}

func inflate(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("the body is not gzip as its Content-Encoding says: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxInflated+1))
	if err != nil {
		return nil, fmt.Errorf("the gzip body does not decode: %w", err)
	}
	if len(out) > maxInflated {
		return nil, fmt.Errorf("the gzip body inflates past %d bytes", maxInflated)
	}
	return out, nil
}

// unrouted reports whether the document has no operation for the request.
func unrouted(errs []*liberrors.ValidationError) bool {
	for _, e := range errs {
		if e.IsPathMissingError() || e.IsOperationMissingError() {
			return true
		}
	}
	return false
}

func joinValidation(errs []*liberrors.ValidationError) error {
	var out []error
	for _, e := range errs {
		msg := e.Message
		if e.Reason != "" {
			msg += ": " + e.Reason
		}
		for _, s := range e.SchemaValidationErrors {
			msg += fmt.Sprintf(" [%s at %s]", s.Reason, s.FieldPath)
		}
		out = append(out, errors.New(msg))
	}
	return errors.Join(out...)
}

// Transport returns a round tripper that sends each request through next
// (http.DefaultTransport when nil), checks the exchange with [Validator.Check]
// and reports a mismatch with t.Errorf. Bodies are read whole, so it suits
// request and response bodies of test size, not streams.
func (v *Validator) Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &checking{v: v, t: t, next: next}
}

// Client returns a copy of c whose transport checks every exchange (see
// [Validator.Transport]).
func (v *Validator) Client(t testing.TB, c *http.Client) *http.Client {
	out := *c
	out.Transport = v.Transport(t, c.Transport)
	return &out
}

type checking struct {
	v    *Validator
	t    testing.TB
	next http.RoundTripper
}

func (c *checking) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	sent := req.Clone(req.Context())
	if body != nil {
		sent.Body = io.NopCloser(bytes.NewReader(body))
		sent.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	res, err := c.next.RoundTrip(sent)
	if err != nil {
		return nil, err
	}
	resBody, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(resBody))
	if err := c.v.Check(sent, body, res, resBody); err != nil {
		c.t.Errorf("openapi: %s %s: %v", req.Method, req.URL.Path, err)
	}
	return res, nil
}

// Bearer returns a round tripper that sends each request through next
// with key as its bearer token, for clients that cannot set a header
// themselves (the MCP SDK's streamable client).
func Bearer(key string, next http.RoundTripper) http.RoundTripper {
	return bearer{key: key, next: next}
}

type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}
