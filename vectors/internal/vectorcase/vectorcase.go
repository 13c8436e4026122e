// Package vectorcase holds what the JSON conformance vector sets share:
// reading a set's case files and comparing decoded results with a case's
// expectations, numbers within one tolerance.
package vectorcase

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Tolerance is the absolute difference allowed between an expected and a
// computed number.
const Tolerance = 1e-9

// Fail reports whether a case named name expects its input to be refused.
func Fail(name string) bool { return strings.HasSuffix(name, "_fail") }

// Load reads every cases/*.json file of fsys into a C, sorted by file name.
// Each case's name (from name) must match its file, and its expectations
// (from expect) must hold an "error" exactly when the case is a _fail case.
func Load[C any](fsys fs.FS, name func(*C) string, expect func(*C) map[string]any) ([]C, error) {
	names, err := fs.Glob(fsys, "cases/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	cases := make([]C, 0, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		var c C
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if name(&c)+".json" != path.Base(n) {
			return nil, fmt.Errorf("%s: name %q does not match the file", n, name(&c))
		}
		if _, ok := expect(&c)["error"]; ok != Fail(name(&c)) {
			return nil, fmt.Errorf("%s: an error is expected exactly in _fail cases", n)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// CheckError compares the reason code of a refused case with the expected
// one.
func CheckError(expect map[string]any, code string) error {
	if want := expect["error"]; want != code {
		return fmt.Errorf("error: got reason %q, want %q", code, want)
	}
	return nil
}

// Equal compares decoded JSON values, numbers within Tolerance; an absent
// list equals an empty one.
func Equal(want, got any) bool {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(w-g) <= Tolerance
	case []any:
		g, ok := got.([]any)
		if !ok && got == nil {
			return len(w) == 0
		}
		return ok && slices.EqualFunc(w, g, Equal)
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if !Equal(v, g[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

// Object, List and Str return a decoded JSON value as an object, a list or
// a string, or the zero value when it is something else.
func Object(v any) map[string]any { m, _ := v.(map[string]any); return m }

// List: see [Object].
func List(v any) []any { l, _ := v.([]any); return l }

// Str: see [Object].
func Str(v any) string { s, _ := v.(string); return s }

// CheckGenerated is a generated set's test: it fails t with every
// difference [Generated] finds between the case files of dir and cases
// (rewriting them first with update).
func CheckGenerated[C any](t testing.TB, dir string, cases []C, name func(C) string, update bool) {
	t.Helper()
	diffs, err := Generated(dir, cases, name, update)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

// Generated holds the case files of dir against cases, the cases a
// generator writes, each as indented JSON in a file named after it (from
// name); with update it first rewrites the folder. It returns one sentence
// per difference, and an error for a name generated twice.
func Generated[C any](dir string, cases []C, name func(C) string, update bool) ([]string, error) {
	want := map[string][]byte{}
	for _, c := range cases {
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return nil, err
		}
		file := name(c) + ".json"
		if _, dup := want[file]; dup {
			return nil, fmt.Errorf("case %s is generated twice", name(c))
		}
		want[file] = append(b, '\n')
	}
	return Sync(dir, want, update)
}

// Sync holds the case files of dir (its cases/*.json) against want, the
// files a generator writes by name. With update it first rewrites the
// folder to hold exactly want. It returns one sentence per difference.
func Sync(dir string, want map[string][]byte, update bool) ([]string, error) {
	casesDir := filepath.Join(dir, "cases")
	if update {
		old, _ := filepath.Glob(filepath.Join(casesDir, "*.json"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return nil, err
			}
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(casesDir, name), b, 0o644); err != nil {
				return nil, err
			}
		}
	}
	var diffs []string
	have, _ := filepath.Glob(filepath.Join(casesDir, "*.json"))
	if len(have) != len(want) {
		diffs = append(diffs, fmt.Sprintf("%d case files, the generator writes %d (run go test -update)", len(have), len(want)))
	}
	names := slices.Sorted(maps.Keys(want))
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(casesDir, name))
		if err != nil || !bytes.Equal(got, want[name]) {
			diffs = append(diffs, fmt.Sprintf("cases/%s differs from the generator (run go test -update)", name))
		}
	}
	return diffs, nil
}
