package statuslist

import (
	"errors"
	"testing"

	"github.com/remnant/passportkit/passport"
)

// draftPayload is the draft's example status list token payload (section
// 5.1) with the iss our tokens carry.
const draftPayload = `{"exp":2291720170,"iat":1686920170,"iss":"https://issuer.example","status_list":{"bits":1,"lst":"eNrbuRgAAhcBXQ"},"sub":"https://example.com/statuslists/1","ttl":43200}`

func TestPayloadRoundTrip(t *testing.T) {
	want := Payload{
		Exp: 2291720170, Iat: 1686920170, Iss: "https://issuer.example",
		StatusList: Encoded{Bits: 1, Lst: "eNrbuRgAAhcBXQ"},
		Sub:        "https://example.com/statuslists/1", TTL: 43200,
	}
	b, err := MarshalPayload(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != draftPayload {
		t.Fatalf("MarshalPayload:\n%s\nwant\n%s", b, draftPayload)
	}
	got, err := ParsePayload(b)
	if err != nil {
		t.Fatal(err)
	}
	if *got != want {
		t.Fatalf("ParsePayload: %+v, want %+v", *got, want)
	}
	if _, err := MarshalPayload(Payload{StatusList: want.StatusList, Iss: "i", Sub: "s"}); !errors.Is(err, ErrMemberInvalid) {
		t.Errorf("MarshalPayload with ttl 0: %v, want ErrMemberInvalid", err)
	}
}

// TestParsePayloadRefusals gives each refusal its member and cause; with
// several faults, the first in document order wins, then the first
// missing member by name.
func TestParsePayloadRefusals(t *testing.T) {
	const sl = `"status_list":{"bits":2,"lst":"eNo76fITAAPfAgc"}`
	for _, c := range []struct {
		name, payload, member string
		want                  error
		reason                passport.Reason
	}{
		{"not canonical: whitespace", `{ "exp":1}`, "", nil, passport.ReasonJSONNotCanonical},
		{"not canonical: order", `{"iat":1,"exp":2,"iss":"i",` + sl + `,"sub":"s","ttl":1}`, "", nil, passport.ReasonJSONNotCanonical},
		{"a duplicate member", `{"exp":1,"exp":1}`, "", nil, passport.ReasonJSONDuplicateKey},
		{"trailing newline", draftPayload + "\n", "", nil, passport.ReasonJSONTrailingData},
		{"not an object", `[1]`, "", ErrMemberInvalid, ""},
		{"an unknown member", `{"aud":"x","exp":2,"iat":1,"iss":"i",` + sl + `,"sub":"s","ttl":1}`, "aud", ErrMemberUnknown, ""},
		{"nbf", `{"exp":2,"iat":1,"iss":"i","nbf":1,` + sl + `,"sub":"s","ttl":1}`, "nbf", ErrMemberUnknown, ""},
		{"aggregation_uri", `{"exp":2,"iat":1,"iss":"i","status_list":{"aggregation_uri":"u","bits":2,"lst":"eNo76fITAAPfAgc"},"sub":"s","ttl":1}`, "status_list.aggregation_uri", ErrMemberUnknown, ""},
		{"no ttl", `{"exp":2,"iat":1,"iss":"i",` + sl + `,"sub":"s"}`, "ttl", ErrMemberMissing, ""},
		{"no exp, no ttl", `{"iat":1,"iss":"i",` + sl + `,"sub":"s"}`, "exp", ErrMemberMissing, ""},
		{"no lst", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":2},"sub":"s","ttl":1}`, "status_list.lst", ErrMemberMissing, ""},
		{"empty", `{}`, "exp", ErrMemberMissing, ""},
		{"exp a string", `{"exp":"2","iat":1,"iss":"i",` + sl + `,"sub":"s","ttl":1}`, "exp", ErrMemberInvalid, ""},
		{"exp a fraction", `{"exp":2.5,"iat":1,"iss":"i",` + sl + `,"sub":"s","ttl":1}`, "exp", ErrMemberInvalid, ""},
		{"iat negative", `{"exp":2,"iat":-1,"iss":"i",` + sl + `,"sub":"s","ttl":1}`, "iat", ErrMemberInvalid, ""},
		{"iss empty", `{"exp":2,"iat":1,"iss":"",` + sl + `,"sub":"s","ttl":1}`, "iss", ErrMemberInvalid, ""},
		{"iss null", `{"exp":2,"iat":1,"iss":null,` + sl + `,"sub":"s","ttl":1}`, "iss", ErrMemberInvalid, ""},
		{"status_list an array", `{"exp":2,"iat":1,"iss":"i","status_list":[2],"sub":"s","ttl":1}`, "status_list", ErrMemberInvalid, ""},
		{"bits 3", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":3,"lst":"eNo76fITAAPfAgc"},"sub":"s","ttl":1}`, "status_list.bits", ErrMemberInvalid, ""},
		{"bits 16", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":16,"lst":"eNo76fITAAPfAgc"},"sub":"s","ttl":1}`, "status_list.bits", ErrMemberInvalid, ""},
		{"bits a string", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":"2","lst":"eNo76fITAAPfAgc"},"sub":"s","ttl":1}`, "status_list.bits", ErrMemberInvalid, ""},
		{"lst empty", `{"exp":2,"iat":1,"iss":"i","status_list":{"bits":2,"lst":""},"sub":"s","ttl":1}`, "status_list.lst", ErrMemberInvalid, ""},
		{"sub a number", `{"exp":2,"iat":1,"iss":"i",` + sl + `,"sub":1,"ttl":1}`, "sub", ErrMemberInvalid, ""},
		{"ttl 0", `{"exp":2,"iat":1,"iss":"i",` + sl + `,"sub":"s","ttl":0}`, "ttl", ErrMemberInvalid, ""},
		{"first fault in document order", `{"exp":-1,"iat":1,"iss":"i",` + sl + `,"sub":"s","ttl":0}`, "exp", ErrMemberInvalid, ""},
		{"a fault before a missing member", `{"exp":2,"iat":1,"iss":"i",` + sl + `,"ttl":0}`, "ttl", ErrMemberInvalid, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePayload([]byte(c.payload))
			var pe *PayloadError
			if !errors.As(err, &pe) {
				t.Fatalf("ParsePayload: %v, want a *PayloadError", err)
			}
			if pe.Member != c.member {
				t.Errorf("member %q, want %q (%v)", pe.Member, c.member, err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("%v, want %v", err, c.want)
			}
			if c.reason != "" && passport.ReasonOf(err) != c.reason {
				t.Errorf("reason %q, want %q (%v)", passport.ReasonOf(err), c.reason, err)
			}
		})
	}
}
