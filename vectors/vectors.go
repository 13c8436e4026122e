// Package vectors holds passportkit's conformance vectors: bundles, a trust
// file and the verdict each bundle must get, so that a verifier in any
// language can prove itself against the same cases. README.md in this
// folder specifies the layout.
//
// The vectors are generated deterministically (fixed keys, fixed clock) by
// Generate, one small function per case, and shipped in FS.
package vectors

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/remnant/passportkit/passport"
)

//go:embed testdata
var embedded embed.FS

// FS holds the vectors: trust.json, and cases/<name>/case.json with
// bundle.json, or presentation.json for the cases that verify a
// presentation, and, for the cases that check a passport's status,
// status.jwt.
var FS fs.FS = must(fs.Sub(embedded, "testdata"))

func must(f fs.FS, err error) fs.FS {
	if err != nil {
		panic(err)
	}
	return f
}

// Case is one vector.
type Case struct {
	// Name is the case's folder name; negative cases end in "_fail".
	Name string `json:"-"`
	// Description says what the bundle exercises.
	Description string `json:"description"`
	// At is the verification time.
	At time.Time `json:"-"`
	// Verified is the expected verdict.
	Verified bool `json:"verified"`
	// Reason is the expected reason code ("ok" when Verified).
	Reason string `json:"reason"`
	// Check is the name of the check expected to fail ("" when Verified).
	Check string `json:"check,omitempty"`
	// Checks is the expected outcome of every check, in order.
	Checks []CheckOutcome `json:"-"`
	// Bundle is the bundle's exact bytes.
	Bundle []byte `json:"-"`
	// StatusList is the status list token to verify the bundle with (the
	// case's status.jwt), or nil for none.
	StatusList []byte `json:"-"`
	// Presentation is the presentation's exact bytes (the case's
	// presentation.json), for a case that verifies a presentation instead
	// of a bundle; Bundle is then nil.
	Presentation []byte `json:"-"`
	// PresentedTo is what the verifier requires of a presentation; nil for
	// a bundle.
	PresentedTo *PresentedTo `json:"-"`
}

// PresentedTo is a relying party's presentation policy (SPEC.md §11.6):
// its own identifier, the nonce it handed out and how old a key binding
// may be, in seconds.
type PresentedTo struct {
	Audience string `json:"aud"`
	Nonce    string `json:"nonce"`
	MaxAge   int64  `json:"maxAge"`
}

// CheckOutcome is one check of a case's expected result: its name and
// reason (SPEC.md §11.2, §11.3).
type CheckOutcome struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// caseFile is the JSON form of case.json.
type caseFile struct {
	Description string         `json:"description"`
	At          string         `json:"at"`
	Verified    bool           `json:"verified"`
	Reason      string         `json:"reason"`
	Check       string         `json:"check,omitempty"`
	Checks      []CheckOutcome `json:"checks"`
	PresentedTo *PresentedTo   `json:"presentation,omitempty"`
}

// The names of a case's input files besides case.json.
const (
	statusFile       = "status.jwt"
	bundleFile       = "bundle.json"
	presentationFile = "presentation.json"
)

// Load reads the trust file and every case from fsys, in name order.
func Load(fsys fs.FS) (trust []byte, cases []Case, err error) {
	trust, err = fs.ReadFile(fsys, "trust.json")
	if err != nil {
		return nil, nil, err
	}
	dirs, err := fs.ReadDir(fsys, "cases")
	if err != nil {
		return nil, nil, err
	}
	for _, d := range dirs {
		dir := path.Join("cases", d.Name())
		meta, err := fs.ReadFile(fsys, path.Join(dir, "case.json"))
		if err != nil {
			return nil, nil, err
		}
		var cf caseFile
		if err := json.Unmarshal(meta, &cf); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", dir, err)
		}
		at, err := passport.ParseTime(cf.At)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", dir, err)
		}
		input := bundleFile
		if cf.PresentedTo != nil {
			input = presentationFile
		}
		doc, err := fs.ReadFile(fsys, path.Join(dir, input))
		if err != nil {
			return nil, nil, err
		}
		status, err := fs.ReadFile(fsys, path.Join(dir, statusFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		c := Case{Name: d.Name(), Description: cf.Description, At: at.Time, Verified: cf.Verified, Reason: cf.Reason,
			Check: cf.Check, Checks: cf.Checks, StatusList: status, PresentedTo: cf.PresentedTo}
		if cf.PresentedTo != nil {
			c.Presentation = doc
		} else {
			c.Bundle = doc
		}
		cases = append(cases, c)
	}
	return trust, cases, nil
}

// Generate builds every file of the vectors, keyed by path relative to FS.
func Generate() (map[string][]byte, error) {
	f, err := newFixture()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	if files["trust.json"], err = f.trust(); err != nil {
		return nil, err
	}
	v, err := f.verifier()
	if err != nil {
		return nil, err
	}
	for name, b := range trustFiles() {
		files[name] = b
	}
	seen := map[string]bool{}
	for _, g := range allGenerators() {
		if seen[g.name] {
			return nil, fmt.Errorf("vectors: case %s defined twice", g.name)
		}
		seen[g.name] = true
		c, err := g.fn(f)
		if err != nil {
			return nil, fmt.Errorf("vectors: %s: %w", g.name, err)
		}
		if c.Verified == strings.HasSuffix(g.name, "_fail") {
			return nil, fmt.Errorf("vectors: %s: the _fail suffix must mark exactly the negative cases", g.name)
		}
		if c.Checks, err = outcomes(v, &c); err != nil {
			return nil, fmt.Errorf("vectors: %s: %w", g.name, err)
		}
		dir := path.Join("cases", g.name)
		files[path.Join(dir, "case.json")] = caseJSON(&c)
		if c.PresentedTo != nil {
			files[path.Join(dir, presentationFile)] = c.Presentation
		} else {
			files[path.Join(dir, bundleFile)] = c.Bundle
		}
		if c.StatusList != nil {
			files[path.Join(dir, statusFile)] = c.StatusList
		}
	}
	return files, nil
}

// Names returns the case names Generate produces, sorted.
func Names() []string {
	var names []string
	for _, g := range allGenerators() {
		names = append(names, g.name)
	}
	sort.Strings(names)
	return names
}
