// Package extdata locates the external test material that lives beside the
// repository in ../shared/testdata. It is for tests only.
//
// A user's clone has no ../shared: tests that need it skip, saying so in one
// line. When the CI environment variable is set the material must be present,
// and its absence fails the test instead.
package extdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns the path of elem under ../shared/testdata, relative to the
// repository root. It skips t when the folder is absent, or fails t when the
// CI environment variable is set.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("extdata: %v", err)
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "testdata")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("extdata: %s is missing, and CI requires it", dir)
		}
		t.Skipf("extdata: %s not present; skipping external reference test", dir)
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

// repoRoot walks up from the working directory to the folder holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
