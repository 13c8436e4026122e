// Package evidence holds the records a passport's figures are computed from,
// and the Merkle tree (RFC 9162) whose head, the evidenceRoot, commits a
// passport to all of them while a bundle discloses only some.
package evidence
