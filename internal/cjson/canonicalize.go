package cjson

import "github.com/gowebpki/jcs"

// Canonicalize returns the RFC 8785 canonical form of a strict I-JSON
// document: the one guarded canonicaliser of the project. It refuses, with
// an *Error, what Parse refuses in strict mode (duplicate member names,
// invalid UTF-8, lone surrogates, integers beyond ±(2^53−1), nesting deeper
// than DefaultMaxDepth, trailing data), and checks its own output in
// canonical mode, so that a value such as 1e16, canonically an integer
// beyond the guard, is refused too. Whatever it returns parses in
// canonical mode.
func Canonicalize(in []byte) ([]byte, error) {
	if _, err := Parse(in, Options{IndexDepth: 1}); err != nil {
		return nil, err
	}
	out, err := jcs.Transform(in)
	if err != nil {
		// Unreachable for input the strict parser accepts; kept as a refusal.
		return nil, &Error{Code: CodeSyntax, Msg: "not JSON: " + err.Error()}
	}
	if _, err := Parse(out, Options{Canonical: true, IndexDepth: 1}); err != nil {
		return nil, err
	}
	return out, nil
}
