package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/cli"
)

// TestPresentRoundTrip signs a passport naming a holder key, presents it
// with that key and verifies the presentation, all through the command;
// then checks the refusals of present and of sign --holder-key.
func TestPresentRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	cmd := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, nil, &stdout, &stderr); code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, stdout.String(), stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	write := func(name, content string) {
		if err := os.WriteFile(file(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd(cli.ExitOK, "keys", "generate", "--out", file("issuer.jwk"))
	cmd(cli.ExitOK, "keys", "generate", "--alg", "ES256", "--out", file("holder.jwk"))
	cmd(cli.ExitOK, "keys", "generate", "--out", file("other.jwk"))
	write("trust.json", cmd(cli.ExitOK, "keys", "trust", "--issuer", "https://issuer.example", file("issuer.jwk")))
	sign := []string{"sign", "--key", file("issuer.jwk"), "--issuer", "https://issuer.example", "--issued-at", "2026-05-01T00:00:00Z", "../../examples/passport.json"}
	write("bound.json", cmd(cli.ExitOK, append(sign, "--holder-key", file("holder.jwk"))...))
	write("bearer.json", cmd(cli.ExitOK, sign...))

	present := []string{"present", "--aud", "https://rp.example", "--nonce", "n1", "--issued-at", "2026-05-02T00:00:00Z"}
	cmd(cli.ExitOK, append(present, "--bundle", file("bound.json"), "--key", file("holder.jwk"), "-o", file("p.json"))...)
	verify := []string{"verify", "--trust", file("trust.json"), "--subject", "agt_7Qm2xKp9", "--at", "2026-05-02T00:01:00Z", "--presentation", "--aud", "https://rp.example"}
	if out := cmd(cli.ExitOK, append(verify, "--nonce", "n1", file("p.json"))...); !strings.Contains(out, "presented by holder key") {
		t.Errorf("the verdict does not name the holder key:\n%s", out)
	}
	if out := cmd(cli.ExitFailed, append(verify, "--nonce", "n0", file("p.json"))...); !strings.Contains(out, "not verified: kb_nonce_mismatch") {
		t.Errorf("a replayed nonce:\n%s", out)
	}

	if out := cmd(cli.ExitFailed, append(present, "--bundle", file("bound.json"), "--key", file("other.jwk"))...); !strings.Contains(out, "kb_key_not_bound") {
		t.Errorf("a key the passport does not name:\n%s", out)
	}
	if out := cmd(cli.ExitFailed, append(present, "--bundle", file("bearer.json"), "--key", file("holder.jwk"))...); !strings.Contains(out, "passport_not_bound") {
		t.Errorf("a passport without cnf:\n%s", out)
	}
	cmd(cli.ExitUsage, "present", "--aud", "a", "--nonce", "n", "--issued-at", "noon", "--bundle", file("bound.json"), "--key", file("holder.jwk"))
	cmd(cli.ExitUsage, "present", "--aud", "a", "--bundle", file("bound.json"), "--key", file("holder.jwk"))
	cmd(cli.ExitUsage, append(sign, "--holder-key", file("holder.jwk"), "--holder-key", file("holder.jwk"))...)
}
