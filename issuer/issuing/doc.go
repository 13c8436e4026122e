// Package issuing is the pure core of passport issuance: it turns what the
// store knows about one agent into a signed passport bundle and the
// complete evidence file behind it.
//
// It reads no clock, file, network or database and draws no randomness:
// the issuance time, the per-passport pseudonym key and the signer are
// arguments, so the same arguments give the same bytes.
//
// # The input
//
// [Subject] is the contract with the store: the subject agent, its
// declared capabilities, public activity and reputation aggregates, all of
// its memories (private ones included, for lineage only), the events on
// them in full history, and the owner bindings of every agent involved.
// Identifiers in it are internal [Key] values, which never leave this
// package except as per-passport pseudonyms.
//
// # The steps
//
//   - [Collect], the source adapter, maps the subject to SPEC.md §5
//     evidence records within the collection limits, with historical
//     ownership and per-passport pseudonyms, and marks the collection
//     truncated when a limit left records out.
//   - [Assemble] assesses the subject's skills with skilltrust and builds
//     the passport: the outer v0.1 members, at most 50 skill passports, the
//     evidence root over every record.
//   - [Draft.Sign] signs it and returns the bundle with the records a
//     [Disclosure] asks for, and the complete evidence file.
//
// [Issue] runs all three.
//
// # What never leaves
//
// No internal key, operator id, private memory (its id, content hash,
// labels or events), private or hidden link target, or API key enters a
// record, a passport or an evidence file. A public memory hidden by
// moderation or withdrawn keeps its evidence under a per-passport
// pseudonym. Context label values appear only in records; a bundle
// carries those of the records it discloses.
package issuing
