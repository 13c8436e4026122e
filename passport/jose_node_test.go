package passport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
)

// joseDirEnv names a directory holding node_modules/jose, for
// TestJoseJWTVerify.
const joseDirEnv = "PASSPORTKIT_JOSE_DIR"

// TestJoseJWTVerify checks that a generic JOSE library enforces what the
// JWT claims of passportVersion 0.2 carry: the npm jose package's
// jwtVerify, given only the issuer's public JWK, accepts a fresh 0.2
// credential (EdDSA and ES256) and refuses one that has expired, one not
// yet valid and one from another issuer than it expects; and it accepts an
// expired 0.1 credential, which says nothing of its expiry in JWT terms.
//
// It needs Node and the jose package, and runs only when
// PASSPORTKIT_JOSE_DIR names a directory holding node_modules/jose:
//
//	mkdir -p /tmp/jose && (cd /tmp/jose && npm install jose@6)
//	PASSPORTKIT_JOSE_DIR=/tmp/jose go test ./passport -run TestJoseJWTVerify -v
func TestJoseJWTVerify(t *testing.T) {
	dir := os.Getenv(joseDirEnv)
	if dir == "" {
		t.Skipf("%s is not set: no directory with node_modules/jose to run testdata/jose/jwtverify.mjs with", joseDirEnv)
	}
	modules, err := filepath.Abs(filepath.Join(dir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "jose", "package.json")); err != nil {
		t.Skipf("%s names no directory with node_modules/jose: %v", joseDirEnv, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}

	issued := time.Now().UTC().Truncate(time.Second).Add(-time.Minute)
	expires := issued.Add(time.Hour)
	type joseCase struct {
		Name    string          `json:"name"`
		JWK     json.RawMessage `json:"jwk"`
		JWS     string          `json:"jws"`
		Issuer  string          `json:"issuer,omitempty"`
		Subject string          `json:"subject,omitempty"`
		At      int64           `json:"at"`
	}
	credential := func(alg passport.Algorithm, version string) (string, json.RawMessage) {
		key, err := passport.NewPrivateKey(alg, bytes.Repeat([]byte{9}, 32))
		if err != nil {
			t.Fatal(err)
		}
		p := &passport.Passport{PassportVersion: version, Issuer: "https://issuer.example", Subject: passport.Subject{ID: "agt_jose"},
			IssuedAt: passport.NewTime(issued), ExpiresAt: passport.NewTime(expires), Policies: passport.DefaultPolicies()}
		b, err := passport.NewSigner(key).Sign(p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		bundle, err := passport.ParseBundleUnverified(b)
		if err != nil {
			t.Fatal(err)
		}
		jwk, err := key.Public().MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return bundle.Credential, jwk
	}
	edJWS, edJWK := credential(passport.EdDSA, passport.Version)
	esJWS, esJWK := credential(passport.ES256, passport.Version)
	oldJWS, _ := credential(passport.EdDSA, "0.1")
	const iss, sub = "https://issuer.example", "agt_jose"
	now := issued.Add(time.Minute).Unix()
	cases := []joseCase{
		{"fresh EdDSA", edJWK, edJWS, iss, sub, now},
		{"fresh ES256", esJWK, esJWS, iss, sub, now},
		{"expired", edJWK, edJWS, iss, sub, expires.Unix() + 1},
		{"not yet valid", edJWK, edJWS, iss, sub, issued.Unix() - 1},
		{"another issuer expected", edJWK, edJWS, "https://other.example", sub, now},
		{"another subject expected", edJWK, edJWS, iss, "agt_other", now},
		{"expired 0.1", edJWK, oldJWS, "", "", expires.Unix() + 86400},
	}
	want := map[string]string{ // "" means accepted
		"fresh EdDSA": "", "fresh ES256": "", "expired": "ERR_JWT_EXPIRED", "not yet valid": "ERR_JWT_CLAIM_VALIDATION_FAILED",
		"another issuer expected": "ERR_JWT_CLAIM_VALIDATION_FAILED", "another subject expected": "ERR_JWT_CLAIM_VALIDATION_FAILED",
		"expired 0.1": "",
	}

	work := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "jose", "jwtverify.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "jwtverify.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(map[string]any{"cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "jwtverify.mjs")
	cmd.Dir, cmd.Stdin = work, bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got struct {
		Results []struct {
			Name    string         `json:"name"`
			OK      bool           `json:"ok"`
			Code    string         `json:"code"`
			Payload map[string]any `json:"payload"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node output: %v\n%s", err, out)
	}
	if len(got.Results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(got.Results), len(cases))
	}
	for _, r := range got.Results {
		if w := want[r.Name]; r.OK != (w == "") || r.Code != w {
			t.Errorf("%s: ok %v code %q, want code %q", r.Name, r.OK, r.Code, w)
			continue
		}
		t.Logf("%s: ok %v %s", r.Name, r.OK, r.Code)
		if r.OK && r.Name != "expired 0.1" && (r.Payload["exp"] != float64(expires.Unix()) || r.Payload["iss"] != iss || r.Payload["sub"] != sub) {
			t.Errorf("%s: payload claims %v %v %v", r.Name, r.Payload["exp"], r.Payload["iss"], r.Payload["sub"])
		}
	}
}
