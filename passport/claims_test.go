package passport

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestHasClaims(t *testing.T) {
	for v, want := range map[string]bool{
		"0.2": true, "0.3": true, "0.10": true, "0.999999999": true,
		"0.1": false, "0.0": false, "1.2": false, "0.02": false, "0.": false, "0": false, "": false, "v0.2": false,
	} {
		if got := HasClaims(v); got != want {
			t.Errorf("HasClaims(%q) = %v, want %v", v, got, want)
		}
	}
}

// claimsPassport is a valid passport of the current version.
func claimsPassport() *Passport {
	return &Passport{
		PassportVersion: Version, Issuer: "https://issuer.example", Subject: Subject{ID: "agt_x", Name: "é\u2028"},
		IssuedAt: NewTime(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)), ExpiresAt: NewTime(time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)),
		Policies: DefaultPolicies(), EvidenceRoot: strings.Repeat("e", 64),
	}
}

func TestValidateBinding(t *testing.T) {
	jkt := func(c byte) string { return strings.Repeat(string(c), 43) }
	ref := func(idx int, uri string) *StatusRef {
		return &StatusRef{StatusList: StatusListRef{Idx: idx, URI: uri}}
	}
	good := "https://issuer.example/status/1"
	tests := []struct {
		name    string
		version string
		cnf     *Confirmation
		status  *StatusRef
		ok      bool
	}{
		{"neither", Version, nil, nil, true},
		{"one key", Version, &Confirmation{JKTs: []string{jkt('A')}}, nil, true},
		{"four keys in order", Version, &Confirmation{JKTs: []string{jkt('0'), jkt('A'), jkt('g'), jkt('w')}}, nil, true},
		{"status", Version, nil, ref(0, good), true},
		{"status at the largest index", Version, nil, ref(1<<53-1, good), true},
		{"later minor version", "0.7", &Confirmation{JKTs: []string{jkt('A')}}, ref(3, good), true},
		{"loopback http", Version, nil, ref(3, "http://127.0.0.1/status/1"), true},
		{"loopback ipv6", Version, nil, ref(3, "http://[::1]/status"), true},
		{"localhost", Version, nil, ref(3, "http://localhost:1/s?x=%2F"), true},
		{"bare host", Version, nil, ref(3, "https://h"), true},
		{"cnf in 0.1", "0.1", &Confirmation{JKTs: []string{jkt('A')}}, nil, false},
		{"status in 0.1", "0.1", nil, ref(0, good), false},
		{"no keys", Version, &Confirmation{JKTs: []string{}}, nil, false},
		{"five keys", Version, &Confirmation{JKTs: []string{jkt('0'), jkt('A'), jkt('Q'), jkt('g'), jkt('w')}}, nil, false},
		{"repeated key", Version, &Confirmation{JKTs: []string{jkt('A'), jkt('A')}}, nil, false},
		{"keys out of order", Version, &Confirmation{JKTs: []string{jkt('Q'), jkt('A')}}, nil, false},
		{"short thumbprint", Version, &Confirmation{JKTs: []string{jkt('A')[1:]}}, nil, false},
		{"padded thumbprint", Version, &Confirmation{JKTs: []string{jkt('A')[1:] + "="}}, nil, false},
		{"stray bits", Version, &Confirmation{JKTs: []string{jkt('A')[1:] + "B"}}, nil, false},
		{"negative index", Version, nil, ref(-1, good), false},
		{"index beyond 2^53", Version, nil, ref(1<<53, good), false},
		{"empty uri", Version, nil, ref(0, ""), false},
		{"plain http", Version, nil, ref(0, "http://issuer.example/status/1"), false},
		{"other scheme", Version, nil, ref(0, "ftp://issuer.example/status/1"), false},
		{"upper-case scheme", Version, nil, ref(0, "HTTPS://issuer.example/status/1"), false},
		{"fragment", Version, nil, ref(0, good+"#x"), false},
		{"space", Version, nil, ref(0, good+" x"), false},
		{"user information", Version, nil, ref(0, "https://u@issuer.example/"), false},
		{"no host", Version, nil, ref(0, "https:///status"), false},
		{"empty port", Version, nil, ref(0, "https://h:/status"), false},
		{"long port", Version, nil, ref(0, "https://h:123456/status"), false},
		{"bad escape", Version, nil, ref(0, good+"%2"), false},
		{"unclosed literal", Version, nil, ref(0, "https://[::1/x"), false},
		{"too long", Version, nil, ref(0, good+strings.Repeat("a", MaxStatusURILen)), false},
		{"non-ASCII", Version, nil, ref(0, good+"é"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := claimsPassport()
			p.PassportVersion, p.Cnf, p.Status = tt.version, tt.cnf, tt.status
			err := p.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
			if err != nil && ReasonOf(err) != ReasonFieldInvalid {
				t.Errorf("reason %s, want %s", ReasonOf(err), ReasonFieldInvalid)
			}
		})
	}
}

// TestMarshalSnapshotClaims checks the 0.2 snapshot against the canonical
// form of the same members decoded and encoded again, and the 0.1 snapshot
// against its two members.
func TestMarshalSnapshotClaims(t *testing.T) {
	p := claimsPassport()
	p.Cnf = &Confirmation{JKTs: []string{strings.Repeat("A", 43)}}
	p.Status = &StatusRef{StatusList: StatusListRef{Idx: 12, URI: "https://issuer.example/status/x"}}
	for _, tt := range []struct {
		name    string
		edit    func(p *Passport)
		members []string
	}{
		{"with status", func(*Passport) {}, []string{"exp", "iat", "iss", "nbf", "passport", "passportHash", "status", "sub"}},
		{"without status", func(p *Passport) { p.Status = nil }, []string{"exp", "iat", "iss", "nbf", "passport", "passportHash", "sub"}},
		{"version 0.1", func(p *Passport) { p.PassportVersion, p.Cnf, p.Status = "0.1", nil, nil }, []string{"passport", "passportHash"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := *p
			tt.edit(&q)
			snap, err := MarshalSnapshot(&q)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckCanonical(snap); err != nil {
				t.Fatalf("not canonical: %v\n%s", err, snap)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(snap, &m); err != nil {
				t.Fatal(err)
			}
			var got []string
			for k := range m {
				got = append(got, k)
			}
			if len(got) != len(tt.members) {
				t.Fatalf("members %v, want %v", got, tt.members)
			}
			for _, k := range tt.members {
				if _, ok := m[k]; !ok {
					t.Fatalf("member %s missing from %s", k, snap)
				}
			}
			if PassportHash(m["passport"]) != strings.Trim(string(m["passportHash"]), `"`) {
				t.Errorf("passportHash is not the hash of the passport")
			}
			var s Snapshot
			if err := json.Unmarshal(snap, &s); err != nil {
				t.Fatal(err)
			}
			if len(tt.members) == 2 {
				if s.Claims != nil {
					t.Errorf("a 0.1 snapshot decodes with claims %+v", s.Claims)
				}
				return
			}
			want := ClaimsOf(&q)
			if s.Claims == nil || s.Issuer != want.Issuer || s.Subject != "agt_x" || s.IssuedAt != 1777593600 ||
				s.NotBefore != s.IssuedAt || s.Expiry != 1778198400 || (q.Status == nil) != (s.Status == nil) {
				t.Errorf("claims %+v, want %+v", s.Claims, want)
			}
			if q.Status != nil && string(m["status"]) != `{"status_list":{"idx":12,"uri":"https://issuer.example/status/x"}}` {
				t.Errorf("status claim %s", m["status"])
			}
		})
	}
}
