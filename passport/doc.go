// Package passport defines the passport document, its strict canonical JSON
// form, the passportHash, the JWS signature profile and the bundle format.
//
// The normative description of every format lives in SPEC.md at the root of
// the repository; this package is its reference implementation.
package passport
