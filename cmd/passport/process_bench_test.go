package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkProcessVerify measures a whole `passport verify` process on a
// bundle of about 20 KiB against a Go hello-world process, run interleaved
// in one loop, and reports each one's CPU time (user plus system, all
// threads) per run and the ratio; the goal is at most 3. The binaries are
// built by the benchmark with the toolchain running it: passport twice, as
// docs/verifying.md installs it (CGO_ENABLED=0, a static binary: x-hello) and with
// the toolchain's default environment, which links passport dynamically
// against the C library when a C compiler is present (x-hello-cgo), because
// net and os/user then use cgo.
//
//	go test -run='^$' -bench=BenchmarkProcessVerify -benchtime=150x ./cmd/passport
func BenchmarkProcessVerify(b *testing.B) {
	dir := b.TempDir()
	hello := filepath.Join(dir, "hello")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	build := func(out, pkg, wd string, env ...string) {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), env...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	build(hello, ".", dir)
	bin := filepath.Join(dir, "passport")
	build(bin, ".", ".", "CGO_ENABLED=0")
	binCgo := filepath.Join(dir, "passport-cgo")
	build(binCgo, ".", ".")

	// A bundle of about 20 KiB: the example evidence repeated under new ids.
	var ex struct {
		Evidence []map[string]any `json:"evidence"`
	}
	raw, err := os.ReadFile("../../examples/evidence.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ex); err != nil {
		b.Fatal(err)
	}
	var records []map[string]any
	for i := 0; len(records) < 31; i++ {
		r := map[string]any{}
		for k, v := range ex.Evidence[i%len(ex.Evidence)] {
			r[k] = v
		}
		r["id"] = fmt.Sprintf("ev_%03d", i)
		records = append(records, r)
	}
	unsigned, _ := json.Marshal(map[string]any{"passport": map[string]any{"subject": map[string]any{"id": "agt_bench"}, "trustLevel": "new"}, "evidence": records})
	files := map[string][]byte{"unsigned.json": unsigned}
	for name, b2 := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b2, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run := func(args ...string) []byte {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("passport %v: %v", args, err)
		}
		return out
	}
	run("keys", "generate", "--out", "issuer.jwk")
	trust := run("keys", "trust", "--issuer", "https://issuer.example", "issuer.jwk")
	bundle := run("sign", "--key", "issuer.jwk", "--issuer", "https://issuer.example", "unsigned.json")
	for name, content := range map[string][]byte{"trust.json": trust, "bundle.json": bundle} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	verify := []string{"verify", "--any-subject", "--trust", "trust.json", "bundle.json"}
	if out := run(verify...); !bytes.Contains(out, []byte("verified:")) {
		b.Fatalf("the bundle does not verify:\n%s", out)
	}

	cpu := func(path string, args ...string) time.Duration {
		cmd := exec.Command(path, args...)
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var tHello, tVerify, tCgo time.Duration
	b.ResetTimer()
	for range b.N {
		tHello += cpu(hello)
		tVerify += cpu(bin, verify...)
		tCgo += cpu(binCgo, verify...)
	}
	n := float64(b.N)
	b.ReportMetric(float64(len(bundle)), "bundle-bytes")
	b.ReportMetric(float64(tHello.Microseconds())/n, "µs-cpu-hello")
	b.ReportMetric(float64(tVerify.Microseconds())/n, "µs-cpu-verify")
	b.ReportMetric(float64(tVerify)/float64(tHello), "x-hello")
	b.ReportMetric(float64(tCgo.Microseconds())/n, "µs-cpu-verify-cgo")
	b.ReportMetric(float64(tCgo)/float64(tHello), "x-hello-cgo")
}
