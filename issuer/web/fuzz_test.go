package web

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
)

// FuzzParseCompareQuery: any query either parses within the bounds or is
// refused with a code of the vocabulary; it never panics.
func FuzzParseCompareQuery(f *testing.F) {
	for _, s := range []string{"", "agent=agt_aaaaaaaaaaaaaaaaaaaaaaaaaa&skill=postgres", "agent=x&skill=y&workload=oltp",
		"colour=red", "agent=&skill=&domain=", "skill=a&skill=A&agent=agt_aaaaaaaaaaaaaaaaaaaaaaaaaa",
		"agent=a&agent=b&agent=c&agent=d&agent=e&agent=f&skill=x", "version=1&version=2", "%zz", "skill=%E2%80%AE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		cq, ok, err := parseCompareQuery(raw)
		if err != nil {
			checkCode(t, err)
			return
		}
		if !ok {
			if len(cq.Agents) != 0 || len(cq.Skills) != 0 {
				t.Fatalf("no comparison, yet %v", cq)
			}
			return
		}
		if len(cq.Agents) == 0 || len(cq.Agents) > MaxCompareAgents || len(cq.Skills) == 0 || len(cq.Skills) > MaxCompareSkills {
			t.Fatalf("out of bounds: %d agents, %d skills", len(cq.Agents), len(cq.Skills))
		}
		labels := cq.Context.Values()
		for _, v := range append(cq.Skills, labels[:]...) {
			if len(v) > MaxFieldBytes || v != strings.TrimSpace(v) {
				t.Fatalf("value %q out of bounds", v)
			}
		}
		for _, id := range cq.Agents {
			if _, err := issuer.ParseAgentID(string(id)); err != nil {
				t.Fatalf("agent %q: %v", id, err)
			}
		}
	})
}

// FuzzReadFindQuery: the discovery page reads any query within the bounds
// of find_agents or refuses it with a code of the vocabulary, and a blank
// field reads as a field left out.
func FuzzReadFindQuery(f *testing.F) {
	for _, s := range []string{"", "skill=postgres", "skill=&workload=oltp", "cursor=abc", "skill=a&skill=b", "page=2",
		"skill=x&limit=5&domain=+", "limit=0", "skill=%E2%80%AE", "skill=a&skill=", "workload=oltp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		fq, _, err := readFindQuery(raw)
		blanks := raw
		for _, k := range append([]string{"skill", "limit", "cursor"}, evidence.Dimensions...) {
			blanks += "&" + k + "=+"
		}
		again, _, err2 := readFindQuery(blanks)
		if len(blanks) <= issuer.MaxQuery && (fmt.Sprint(again) != fmt.Sprint(fq) || issuer.ErrorCode(err2) != issuer.ErrorCode(err)) {
			t.Fatalf("blank fields change the reading: %+v (%v), then %+v (%v)", fq, err, again, err2)
		}
		if err != nil {
			switch c := issuer.ErrorCode(err); c {
			case issuer.CodeInvalid, issuer.CodeUnknownDimension, issuer.CodeLimitOutOfRange, issuer.CodeCursorInvalid:
			default:
				t.Fatalf("refused with %s: %v", c, err)
			}
			return
		}
		if len(fq.Skill) > MaxFieldBytes || fq.Skill != strings.TrimSpace(fq.Skill) || fq.Limit < 1 || fq.Limit > issuer.MaxFindAgentsLimit ||
			len(fq.Cursor) > issuer.MaxFindAgentsCursor || (fq.Skill == "" && fq.Context != (evidence.Context{})) {
			t.Fatalf("out of bounds: %+v", fq)
		}
	})
}

// FuzzReadVerifyForm: any body read as the verification form either
// yields one bundle of at most MaxBundleSize+1 bytes and short fields, or
// is refused with a code of the vocabulary.
func FuzzReadVerifyForm(f *testing.F) {
	form := func(parts ...[2]string) []byte {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.SetBoundary("XyZ")
		for _, p := range parts {
			w, _ := mw.CreateFormField(p[0])
			w.Write([]byte(p[1]))
		}
		mw.Close()
		return buf.Bytes()
	}
	f.Add(form([2]string{"bundle", "{}"}, [2]string{"anySubject", "yes"}))
	f.Add(form([2]string{"bundle", " "}, [2]string{"subject", "agt_x"}))
	f.Add(form([2]string{"bundle", "a"}, [2]string{"bundle", "b"}))
	f.Add(form([2]string{"other", "x"}))
	f.Add([]byte("--XyZ\r\nContent-Disposition: form-data; name=\"bundle\"; filename=\"\"\r\n\r\n\r\n--XyZ--\r\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, body []byte) {
		vf, err := readVerifyForm(multipart.NewReader(bytes.NewReader(body), "XyZ"))
		if err != nil {
			checkCode(t, err)
			return
		}
		if len(vf.Bundle) == 0 || len(vf.Bundle) > passport.MaxBundleSize+1 || len(vf.Subject) > maxSubjectBytes {
			t.Fatalf("out of bounds: bundle %d bytes, subject %d", len(vf.Bundle), len(vf.Subject))
		}
		if _, err := policyOf(vf); err != nil {
			checkCode(t, err)
		}
	})
}

func checkCode(t *testing.T, err error) {
	t.Helper()
	switch c := issuer.ErrorCode(err); c {
	case issuer.CodeInvalid, issuer.CodeTooManyItems, issuer.CodeUnknownDimension, issuer.CodeNotFound, issuer.CodeCursorInvalid:
	default:
		t.Fatalf("refused with %s: %v", c, err)
	}
	if m := issuer.ErrorMessage(err); !utf8.ValidString(m) || len(m) > 400 {
		t.Fatalf("message %q", m)
	}
}

// TestCompareFaultOrder pins which fault of a comparison wins (SPEC.md
// §18.3): what only a query can hold first, then the API's rules in the
// API's order (SPEC.md §16.4), agents before skills before the context.
func TestCompareFaultOrder(t *testing.T) {
	agents := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("agent=agt_" + strings.Repeat(string(rune('a'+i)), 26) + "&")
		}
		return b.String()
	}
	long := strings.Repeat("x", MaxFieldBytes+1)
	for _, c := range []struct {
		query string
		want  issuer.Code
	}{
		{agents(11) + "zz=1", issuer.CodeUnknownDimension},
		{agents(11) + "version=1&version=2", issuer.CodeTooManyItems},
		{"version=1&version=2&agent=" + long + "&skill=x", issuer.CodeInvalid},
		{"domain=" + long + "&" + agents(6) + "skill=x", issuer.CodeTooManyItems},
		{agents(6) + "skill=" + long, issuer.CodeTooManyItems},
		{agents(6), issuer.CodeTooManyItems},
		{"agent=nope&" + agents(1) + strings.Repeat("skill=s&", 6), issuer.CodeInvalid},
		{agents(1) + strings.Repeat("skill=s&", 6) + "domain=" + long, issuer.CodeTooManyItems},
		{agents(2), issuer.CodeInvalid},
		{agents(1) + "skill=" + long, issuer.CodeInvalid},
		{agents(1) + "skill=x&domain=" + long, issuer.CodeInvalid},
	} {
		_, _, err := parseCompareQuery(c.query)
		if got := issuer.ErrorCode(err); got != c.want {
			t.Errorf("%.60s…: %s (%v), want %s", c.query, got, err, c.want)
		}
	}
	// The API's words, naming the values as the API numbers them: the
	// non-blank ones, from 0.
	for q, want := range map[string]string{
		"agent=&agent=nope&agent=agt_&skill=x":   `agents[0]: "nope" is not a agt_ identifier`,
		agents(1) + "skill=&skill=SQL&skill=sql": "skills[0] and skills[1] name the same skill, sql",
		agents(1) + agents(1) + "skill=x":        "agents lists agt_aaaaaaaaaaaaaaaaaaaaaaaaaa twice",
	} {
		_, _, err := parseCompareQuery(q)
		if m := issuer.ErrorMessage(err); m != want {
			t.Errorf("%s: %q, want %q", q, m, want)
		}
	}
}
