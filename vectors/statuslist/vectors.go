// Package statuslist holds the conformance vectors of status lists (SPEC.md
// §19): one JSON file per case, each an lst to decode or a status list
// token payload to read, and what a reader must make of it. README.md in
// this folder specifies the format for implementations in other languages.
//
// The cases are written by a generator, one small function per case; run
// the package's tests with -update to rewrite them.
package statuslist

import (
	"embed"
	"io/fs"

	"github.com/remnant/passportkit/vectors/internal/vectorcase"
)

//go:embed cases/*.json
var files embed.FS

// FS returns the case files, in the folder "cases".
func FS() fs.FS { return files }

// The kinds of case.
const (
	KindLst     = "lst"     // decode an lst of the given bits
	KindPayload = "payload" // read a status list token's payload
)

// Case is one conformance vector.
type Case struct {
	// Name is the file name without ".json"; negative cases end in "_fail".
	Name string `json:"name"`
	// Kind says what the case exercises.
	Kind string `json:"kind"`
	// Description says, in a sentence, what is checked.
	Description string `json:"description"`
	// Bits and Lst are the input of an lst case.
	Bits int    `json:"bits,omitempty"`
	Lst  string `json:"lst,omitempty"`
	// Payload is the input of a payload case, verbatim.
	Payload string `json:"payload,omitempty"`
	// Expect holds the expected results; see README.md.
	Expect map[string]any `json:"expect"`
}

// Fail reports whether the case expects its input to be refused.
func (c Case) Fail() bool { return vectorcase.Fail(c.Name) }

// Cases reads every case, sorted by name.
func Cases() ([]Case, error) {
	return vectorcase.Load(files, func(c *Case) string { return c.Name }, func(c *Case) map[string]any { return c.Expect })
}
