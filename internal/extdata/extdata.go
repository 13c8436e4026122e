// Package extdata locates external test material: reference vectors that
// nobody here wrote. It is for tests only.
//
// Material whose licence allows it lives in the repository, under
// testdata/external (see its README for each source and licence), so a
// clone is self-contained: [Path] finds it and fails the test when it is
// missing. The trust graphs, which may not be copied, are read from the
// folder the environment variable [GraphsEnv] names; [Graph] skips the test
// with one line when it names none.
package extdata

import (
	"os"
	"path/filepath"
	"testing"
)

// GraphsEnv names the environment variable holding the folder of the shared
// external material whose graphs/ subfolder holds the trust graphs.
// .ci/run sets it to ../shared/testdata.
const GraphsEnv = "PASSPORTKIT_SHARED_TESTDATA"

// Path returns the path of elem under testdata/external in the repository.
// A missing file fails t: the material is part of every clone.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("extdata: %v", err)
	}
	p := filepath.Join(append([]string{root, "testdata", "external"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("extdata: %v", err)
	}
	return p
}

// Graph returns the path of the trust graph file name under the graphs/
// folder of the material GraphsEnv names, and skips t, saying so in one
// line, when the variable is unset.
func Graph(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv(GraphsEnv)
	if dir == "" {
		t.Skipf("extdata: %s is not set; skipping the test on the trust graph %s", GraphsEnv, name)
	}
	p := filepath.Join(dir, "graphs", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("extdata: %s names %s: %v", GraphsEnv, dir, err)
	}
	return p
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
