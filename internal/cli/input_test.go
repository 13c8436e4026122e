package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadInput reads files and standard input at, below and over the
// limit: ReadInput stops after limit+1 bytes, ReadFile refuses them, and
// every refusal is a usage error.
func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 4096, 70000} {
		content := bytes.Repeat([]byte{'x'}, size)
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, content, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int64{int64(size), int64(size) + 1, max(0, int64(size)-1)} {
			for _, in := range []struct{ name, stdin string }{{name, ""}, {"-", string(content)}} {
				got, err := ReadInput(strings.NewReader(in.stdin), in.name, limit)
				if err != nil {
					t.Fatalf("ReadInput(%s, %d bytes, limit %d): %v", in.name, size, limit, err)
				}
				if want := min(int64(size), limit+1); int64(len(got)) != want || !bytes.Equal(got, content[:want]) {
					t.Errorf("ReadInput(%s, %d bytes, limit %d) = %d bytes, want %d", in.name, size, limit, len(got), want)
				}
				got, err = ReadFile(strings.NewReader(in.stdin), in.name, limit)
				if over := int64(size) > limit; over != (err != nil) {
					t.Errorf("ReadFile(%s, %d bytes, limit %d): %v", in.name, size, limit, err)
				} else if !over && !bytes.Equal(got, content) {
					t.Errorf("ReadFile(%s, %d bytes, limit %d) = %d bytes", in.name, size, limit, len(got))
				}
				if ee, ok := errors.AsType[*ExitError](err); err != nil && (!ok || ee.Code != ExitUsage) {
					t.Errorf("ReadFile(%s, %d bytes, limit %d): %v is not a usage error", in.name, size, limit, err)
				}
			}
		}
	}
	if _, err := ReadInput(nil, filepath.Join(dir, "missing"), 10); err == nil {
		t.Error("a missing file was read")
	} else if ee, ok := errors.AsType[*ExitError](err); !ok || ee.Code != ExitUsage {
		t.Errorf("a missing file: %v is not a usage error", err)
	}
}
