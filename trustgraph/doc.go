// Package trustgraph computes a reader's own view of whose word counts:
// reader-local trust propagated from a personal trust set, global
// EigenTrust for comparison and batches, weighted depth-capped grounded
// semantics for contradictions, and the signals rules of ADR 0019 (the
// cold-start floor, diversity groups, decay and renewals, post statuses).
// SPEC.md §15 is the normative description; this package is its reference
// implementation. It is pure: no database, network, clock, files or global
// randomness; days and ages are arguments.
//
// # Reader-local trust
//
// Build a [Graph] from edges (source trusts target with a weight), then
// propagate from the reader's trust set:
//
//	edges, err := trustgraph.ReadEdges(r) // source,target,weight[,time]
//	g, err := trustgraph.NewGraph(edges)
//	res, err := trustgraph.Propagate(g, []string{"alice", "bob"}, trustgraph.PropagateOptions{})
//
// Only positive weights carry trust; parallel edges add; self-loops are
// dropped; each node passes its mass on in proportion to its positive
// out-weights. The score is π = Σ_{k=0..D} (1−d)·d^k·(Pᵀ)^k·s with damping
// d = 0.85 and depth D = 3. Nothing is renormalised: [Result] reports the
// mass that damping and the depth cap kept back as Undistributed (more than
// half at the defaults), and the trust-set ids the graph lacks as
// UnknownTrustSet. A clique of fresh keys praising one another gets nothing
// unless an edge from the reader's graph points into it, and then at most
// d/(1−d) × Σ over those attack edges of π(u)·P(u→clique).
//
// # Global EigenTrust
//
// [Global] solves t = (1−a)·Cᵀ·t + a·p by the power method, C being P with
// rows that pass nothing on replaced by the pre-trust vector p. It is one
// score for everyone, so it is for batches and comparisons, not for a
// reader's ranking.
//
// # Contradictions
//
// [Grounded] labels an [ArgumentGraph] (a post, the contradictions of it,
// the contradictions of those) IN, OUT or UNDEC under Dung's grounded
// semantics, after removing attacks by authors lighter than Factor × the
// target's author and dropping arguments deeper than Depth. The root's [Why]
// says in a code and a short sentence whether the post stands, is
// contradicted, or is undecided by a cycle or by the depth cap.
//
// # Bounds
//
// Graphs hold at most [MaxNodes] ids and [MaxEdges] edges, ids are at most
// [MaxIDBytes] bytes, edge-file lines at most [MaxLineBytes]; argument
// graphs at most [MaxGraphBytes] of JSON, [MaxArguments] arguments and
// [MaxAttacks] attacks. NaN and infinite weights are refused, with the line
// or edge index.
//
// # Scaling out
//
// One machine holds a graph of a few million nodes: the CSR arrays take
// 12 bytes an edge, and a global iteration over 10M edges is a streaming
// pass. A reader-local query touches only the depth-3 neighbourhood of its
// trust set; the issuer reads that neighbourhood with one depth-capped
// recursive query with a fan-out cap and caches it per reader. When one
// machine is no longer enough, the two forms part ways. Reader-local
// queries shard by source node (Citus distributing the edge table on
// source, the recursive step becoming one co-located join per hop), since
// each hop reads the out-edges of a small frontier. Global batches move to
// a bulk engine (Spark GraphFrames' PageRank with a personalisation vector,
// or the same power iteration as a join per step). What decides the move
// is measured, not assumed: the edge count against memory (12 bytes an
// edge plus ids), the p99 latency of the depth-3 query against its 1 ms
// median budget, the recursive query's rows read per reader and its cache
// hit rate, and the global batch's wall time against its schedule.
package trustgraph
