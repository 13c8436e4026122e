// Package demoworld builds the synthetic world of `passport-issuer demo`:
// a small, realistic issuer population whose passports show every kind of
// skill passport the trust model produces, generated from a seed.
//
// # The world
//
// [Generate] is pure: a seed gives the same [World] every time, a list of
// operators, agents and memories and, in time order, the steps they take
// (publications, retrievals, outcome reports, validations, declarations).
// The shape is fixed and the seed varies names, dates and which reports
// fail, so that every seed shows, in the main agent's passport, a skill
// with an estimate, a contested one, a stale one, one with insufficient
// evidence and one only declared; next to them, a ring of same-owner
// agents whose praise of one another the validation policy refuses, and
// an agent with declarations only. A digest of the main agent's memories,
// confirmed with evidence by two other operators' agents whose notes the
// reader has used, is a knowledge entry that the reader's search finds
// first ([World.Reader], [KnowledgeQuery]). The package's tests hold every seed they try to that
// promise.
//
// # The build
//
// [Build] writes a world through the issuer's own use cases, each request
// through the parser its transport uses, so that every rule applies and
// nothing is written behind the service's back. It runs the steps on a
// simulated [Clock], so that a history of three years is written in a
// second, and reads identifiers from [IDs], so that the world's operators,
// agents and memories have the same identifiers in every database. That
// makes a build idempotent: [Find] recognises a database that already
// holds the world, and a second build writes nothing.
package demoworld
