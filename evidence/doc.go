// Package evidence holds the records a passport's figures are computed
// from, and the Merkle tree whose head, the evidenceRoot, commits a passport
// to all of them while a bundle discloses only some. It is the reference
// implementation of SPEC.md §5 and §6.
//
// # Records
//
// A [Record] is one piece of evidence about a subject: its [Type] (an
// outcome, a validation, a declaration, …), its [Outcome], its [Quality]
// tier, the skill and task [Context] it concerns, its date, who reported it
// and with what [Ownership] relation to the subject, and the [Lineage] that
// ties copies of one piece of work together. [ParseRecord] reads one record
// strictly; [Parse] reads an evidence file into a [Set], an immutable, validated
// collection with its lineage clusters. Identifiers are
// per-passport pseudonyms ([Pseudonyms]) so that two passports cannot be
// joined on them.
//
// # Leaves and the evidence root
//
// Each record's canonical JSON (RFC 8785) is one leaf. The evidenceRoot is
// the RFC 9162 Merkle tree head over the leaves in order: a leaf hashes as
// SHA-256(0x00 ‖ leaf) ([LeafHash], [LeafHasher]), an interior node as
// SHA-256(0x01 ‖ left ‖ right), an odd node is promoted, never duplicated,
// and the empty tree's head is [EmptyRoot]. [Root] and [Tree] compute the
// head; [Tree] also produces inclusion proofs.
//
// # Inclusion proofs
//
// A bundle discloses some leaves with their RFC 9162 inclusion proofs, at
// most [MaxProofLen] hashes each. [VerifyInclusion] checks one proof
// against the root; [Batch] checks many of one tree in increasing index order,
// comparing instead of re-hashing where their paths meet. A [Hash] is written as 64 lower-case hex
// digits ([ParseHash]).
package evidence
