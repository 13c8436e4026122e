package web

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/remnant/passportkit/internal/httpbody"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// Bounds of the verification form (SPEC.md §18.4).
const (
	// MaxVerifyForm bounds the whole form body: one bundle of at most
	// passport.MaxBundleSize and room for the other fields and the
	// multipart framing.
	MaxVerifyForm = passport.MaxBundleSize + 64<<10
	// maxVerifyParts bounds the parts of the form.
	maxVerifyParts = 8
	// maxSubjectBytes bounds the expected subject.
	maxSubjectBytes = 256
)

// verifyForm is a read verification form.
type verifyForm struct {
	// Bundle is the bundle as uploaded, or as pasted with surrounding white
	// space removed; at most passport.MaxBundleSize+1 bytes, so that a
	// larger one fails the size check.
	Bundle     []byte
	Subject    string
	AnySubject bool
}

// readVerifyForm reads the multipart form of POST /verify: parts named
// bundle (a pasted text or an uploaded file; an empty one is no bundle),
// subject and anySubject, and nothing else. It refuses a part of another
// name, more than maxVerifyParts parts, two bundles, a subject or
// anySubject given twice or too long, and reports no bundle; the subject
// choice is checked by the caller.
func readVerifyForm(mr *multipart.Reader) (verifyForm, error) {
	var f verifyForm
	var bundles, subjects, anys int
	for n := 0; ; n++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return f, formError(err)
		}
		if n == maxVerifyParts {
			return f, issuer.Errorf(issuer.CodeInvalid, "the form has more than %d parts", maxVerifyParts)
		}
		switch part.FormName() {
		case "bundle":
			b, err := io.ReadAll(io.LimitReader(part, passport.MaxBundleSize+1))
			if err != nil {
				return f, formError(err)
			}
			if _, err := io.Copy(io.Discard, part); err != nil {
				return f, formError(err)
			}
			if !isFile(part) {
				b = bytes.TrimSpace(b)
			}
			if len(b) == 0 {
				continue
			}
			if bundles++; bundles > 1 {
				return f, issuer.Errorf(issuer.CodeInvalid, "paste a bundle or choose a file, not both")
			}
			f.Bundle = b
		case "subject":
			v, err := smallField(part)
			if err != nil {
				return f, err
			}
			if subjects++; subjects > 1 {
				return f, issuer.Errorf(issuer.CodeInvalid, "the expected agent id is given more than once")
			}
			f.Subject = strings.TrimSpace(v)
		case "anySubject":
			v, err := smallField(part)
			if err != nil {
				return f, err
			}
			if anys++; anys > 1 {
				return f, issuer.Errorf(issuer.CodeInvalid, "\"any subject\" is given more than once")
			}
			f.AnySubject = v != ""
		default:
			return f, issuer.Errorf(issuer.CodeInvalid, "unknown form field %q", clip(part.FormName()))
		}
	}
	if f.Bundle == nil {
		return f, issuer.Errorf(issuer.CodeInvalid, "paste a bundle or choose a file")
	}
	return f, nil
}

// formError is the refusal of a body that is not a multipart form, keeping
// the cause (a body over its bound among them) for errors.As.
func formError(cause error) error {
	return &issuer.Error{Code: issuer.CodeInvalid, Message: "the form is not valid multipart/form-data", Err: cause}
}

// isFile reports whether a part is a file upload: its disposition names a
// file name, even an empty one.
func isFile(p *multipart.Part) bool {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return false
	}
	_, ok := params["filename"]
	return ok
}

// smallField reads a short text field.
func smallField(p *multipart.Part) (string, error) {
	b, err := io.ReadAll(io.LimitReader(p, maxSubjectBytes+1))
	if err != nil {
		return "", formError(err)
	}
	if len(b) > maxSubjectBytes {
		return "", issuer.Errorf(issuer.CodeInvalid, "the field %s is longer than %d bytes", p.FormName(), maxSubjectBytes)
	}
	return string(b), nil
}

// policyOf returns the verification policy the form chooses: the subject
// choice is explicit, one of the two (SPEC.md §11.1).
func policyOf(f verifyForm) (verifier.Policy, error) {
	switch {
	case f.Subject != "" && f.AnySubject:
		return verifier.Policy{}, issuer.Errorf(issuer.CodeInvalid, "give the expected agent id or tick \"any subject\", not both")
	case f.Subject != "":
		return verifier.ForSubject(f.Subject), nil
	case f.AnySubject:
		return verifier.AnySubject(), nil
	}
	return verifier.Policy{}, issuer.Errorf(issuer.CodeInvalid, "say whose passport you expect: give its agent id, or tick \"any subject\"")
}

// verifyPage is the body of the verification page.
type verifyPage struct {
	Subject    string
	AnySubject bool
	Error      string
	Max        string
	// Result is set once a bundle was verified.
	Result *verifyResult
}

type verifyResult struct {
	Verified      bool
	Indeterminate bool
	Reason        string
	Checks        []checkRow
	// Set only when Verified.
	Subject, SubjectURL, Issuer, PassportHash, EvidenceRoot, KeyID string
	At                                                             string
}

type checkRow struct {
	Name, Status, Reason, Detail string
	// Class is ok, fail, skip or none.
	Class string
}

// maxBundleText says the bundle bound in words.
const maxBundleText = "512 KiB"

// verifyForm answers GET /verify: the empty form.
func (h *Handler) verifyForm(w http.ResponseWriter, r *http.Request) error {
	return h.render(w, http.StatusOK, "verify", "Verify a passport", "verify", verifyPage{Max: maxBundleText})
}

// verify answers POST /verify. The form is multipart/form-data; the
// answer never shows the bundle, and shows nothing of a passport that
// failed beyond the checks' reasons.
func (h *Handler) verify(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	page := verifyPage{Max: maxBundleText}
	fail := func(err error) error {
		d := issuerProblem(err)
		if d.Status >= 500 {
			return err
		}
		page.Error = d.Detail
		return h.render(w, d.Status, "verify", "Verify a passport", "verify", page)
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return fail(issuer.Errorf(issuer.CodeUnsupportedMedia, "the form must be sent as multipart/form-data"))
	}
	body, err := httpbody.Read(w, r, httpbody.Options{Limit: MaxVerifyForm, Timeout: h.cfg.BodyTimeout})
	if err != nil {
		return fail(err)
	}
	f, err := readVerifyForm(multipart.NewReader(bytes.NewReader(body), params["boundary"]))
	page.Subject, page.AnySubject = f.Subject, f.AnySubject
	if err != nil {
		return fail(err)
	}
	policy, err := policyOf(f)
	if err != nil {
		return fail(err)
	}
	tf, err := h.cfg.Keys.TrustFile(r.Context())
	if err != nil {
		return fail(err)
	}
	v, err := h.verifiers.For(tf)
	if err != nil {
		return err
	}
	res, err := v.Verify(r.Context(), f.Bundle, policy)
	if err != nil {
		return err
	}
	page.Result = resultOf(res)
	return h.render(w, http.StatusOK, "verify", "Verify a passport", "verify", page)
}

// resultOf is what the page shows of a verification: every check, and the
// passport's identity only when verified.
func resultOf(res *verifier.Result) *verifyResult {
	out := &verifyResult{Verified: res.Verified, Indeterminate: res.Indeterminate(), Reason: string(res.Reason), At: res.At}
	for _, c := range res.Checks {
		row := checkRow{Name: string(c.Name), Reason: string(c.Reason), Detail: c.Detail}
		switch {
		case c.Reason == passport.ReasonNotReached:
			row.Status, row.Class = "not reached", "none"
		case c.Reason == passport.ReasonNotRequired:
			row.Status, row.Class = "not required", "skip"
		case c.Reason == passport.ReasonNotChecked:
			row.Status, row.Class = "not checked", "skip"
		case c.OK:
			row.Status, row.Class = "passed", "ok"
		default:
			row.Status, row.Class = "failed", "fail"
		}
		out.Checks = append(out.Checks, row)
	}
	if res.Verified {
		out.Subject, out.Issuer, out.PassportHash, out.EvidenceRoot, out.KeyID = res.Subject, res.Issuer, res.PassportHash, res.EvidenceRoot, res.KeyID
		if _, err := issuer.ParseAgentID(res.Subject); err == nil {
			out.SubjectURL = "/agents/" + res.Subject
		}
	}
	return out
}
