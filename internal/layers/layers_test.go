// Package layers holds one test: the import rules of the house, checked
// over the whole repository with go list, so that a change that crosses a
// layer fails here and names the import.
package layers

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/remnant/passportkit/"

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// list returns every package of the module, by path relative to its root.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"...")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v: %s", err, errb.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// core is the pure core: no network, database, file, clock or global
// randomness; time and randomness come in as arguments.
var core = []string{"passport", "evidence", "skilltrust", "reputation", "trustgraph", "ledger", "statuslist"}

// forbiddenInCore are standard packages the core never imports directly.
func forbiddenInCore(imp string) bool {
	switch {
	case imp == "net" || strings.HasPrefix(imp, "net/"),
		imp == "database/sql" || strings.HasPrefix(imp, "database/"),
		imp == "os" || strings.HasPrefix(imp, "os/"),
		imp == "io/ioutil", imp == "path/filepath", imp == "syscall",
		imp == "log" || imp == "log/slog",
		imp == "crypto/rand", imp == "math/rand", imp == "math/rand/v2":
		return true
	}
	return false
}

// clockCalls are the calls that read the clock.
var clockCalls = []string{"Now", "Since", "Until"}

func TestCoreIsPure(t *testing.T) {
	pkgs := list(t)
	for _, name := range core {
		p, ok := pkgs[name]
		if !ok {
			t.Fatalf("no package %s", name)
		}
		for _, imp := range p.Imports {
			if forbiddenInCore(imp) || strings.HasPrefix(imp, module+"issuer") || strings.HasPrefix(imp, module+"verifier") {
				t.Errorf("the core package %s imports %s", name, imp)
			}
		}
		for _, f := range p.GoFiles {
			if call := clockCall(t, filepath.Join(p.Dir, f)); call != "" {
				t.Errorf("the core package %s reads the clock: %s", name, call)
			}
		}
	}
}

// clockCall returns the first time.Now, time.Since or time.Until call in
// the file, with its position, or "".
func clockCall(t *testing.T, path string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	timeName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"time"` {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	if timeName == "" {
		return ""
	}
	var found string
	for _, d := range f.Decls {
		if found != "" {
			break
		}
		found = findSelector(fset, d, timeName, clockCalls)
	}
	return found
}

// TestLayers checks which packages may depend on which, transitively.
func TestLayers(t *testing.T) {
	pkgs := list(t)
	rules := []struct {
		from    []string // packages, or prefixes ending in "/"
		mustNot string   // a package path under the module, or a standard one
		why     string
	}{
		{[]string{"issuer/httpapi/", "issuer/mcpserver/", "issuer/web/"}, "issuer/store", "transports reach the data through the service"},
		{[]string{"issuer/keyring"}, "issuer/store", "the keyring declares the store it needs in its own types"},
		{[]string{"issuer/demoworld"}, "issuer/store", "the demo world is built through the use cases"},
		{[]string{"issuer/web/"}, "issuer/httpapi", "the pages share only internal packages with the API"},
		{[]string{"verifier/"}, "ledger", "the verifier knows nothing of the ledger"},
		{[]string{"verifier/"}, "issuer", "the verifier knows nothing of the issuer"},
		{[]string{"issuer"}, "net/http", "the issuer's domain types carry no transport"},
		{[]string{"cmd/passport"}, "issuer", "a third party's verifier links no issuer"},
		{[]string{"cmd/passport"}, "database/sql", "a third party's verifier links no database"},
		{[]string{"cmd/passport-serve"}, "database/sql", "the verification service links no database"},
	}
	for _, r := range rules {
		target := r.mustNot
		if !strings.Contains(target, ".") && pkgs[target].ImportPath != "" {
			target = module + target
		}
		for name, p := range pkgs {
			if !matches(name, r.from) {
				continue
			}
			if slices.Contains(p.Deps, target) || slices.Contains(p.Imports, target) {
				t.Errorf("%s depends on %s: %s", name, r.mustNot, r.why)
			}
		}
	}
}

// TestPassportDependencyBudget pins the modules the passport package (and
// so every verifier) links besides the standard library.
func TestPassportDependencyBudget(t *testing.T) {
	pkgs := list(t)
	allowed := []string{"filippo.io/edwards25519", "github.com/go-jose/go-jose/v4", "golang.org/x/text"}
	for _, d := range pkgs["passport"].Deps {
		first, _, _ := strings.Cut(d, "/")
		if !strings.Contains(first, ".") || strings.HasPrefix(d, module) {
			continue // the standard library, or this module
		}
		if !slices.ContainsFunc(allowed, func(a string) bool { return d == a || strings.HasPrefix(d, a+"/") }) {
			t.Errorf("passport links %s, outside its budget %v", d, allowed)
		}
	}
}

// matches reports whether name is one of from: an exact package, or under
// a prefix ending in "/" (the package named by the prefix included).
func matches(name string, from []string) bool {
	for _, f := range from {
		if name == f || strings.HasSuffix(f, "/") && (name == strings.TrimSuffix(f, "/") || strings.HasPrefix(name, f)) {
			return true
		}
	}
	return false
}

// findSelector returns the position and text of the first call pkg.Name(…)
// in n with Name in names, or "".
func findSelector(fset *token.FileSet, n ast.Node, pkg string, names []string) string {
	found := ""
	ast.Inspect(n, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg && slices.Contains(names, sel.Sel.Name) {
			found = fset.Position(call.Pos()).String() + ": " + pkg + "." + sel.Sel.Name
		}
		return true
	})
	return found
}
