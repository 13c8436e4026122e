package gen

import vectors "github.com/remnant/passportkit/vectors/trustgraph"

var all = []func() vectors.Case{
	// Propagation.
	propagateByHand, propagateParallelEdgesAdd, propagateSelfLoopDropped, propagateNonPositiveNoTrust,
	propagateNegativeDoesNotCancel, propagateDanglingPassesNothing, propagateTrustSetDuplicate,
	propagateUnknownTrustSet, propagateDepthZero, propagateDampingChain, propagateSybilClique,
	propagateSybilAttackEdge, propagateHeader, propagateCycleReturns,
	propagateNaNFail, propagateInfFail, propagateEmptyTrustSetFail, propagateFieldsFail, propagateDampingFail,
	propagateHeaderOnlyFirstFail,
	// Global EigenTrust.
	globalReadme, globalDanglingPreTrust, globalPreTrustUnknownNode, globalUniformPreTrust,
	globalNegativePreTrustFail, globalAlphaFail,
	// Grounded contradictions.
	groundedNone, groundedOne, groundedRebutted, groundedCycle, groundedSelfAttack, groundedCap,
	groundedCapStillOut, groundedDepthZero, groundedLighterIgnored, groundedTieCounts,
	groundedIgnoredRemovedFirst, groundedShortestDepth, groundedCycleAndCap,
	groundedUnknownAttackFail, groundedDuplicateIDFail, groundedFactorFail,
	// Signals.
	floorYoung, floorLinear, floorCap, floorDefaultCap, floorCapTooHighFail, floorUnknownMemberFail,
	floorGraphCarriesWeight, floorGraphEmpty, floorGraphCapCheckedFail, floorNullCapFail,
	decayConfirm, decayVote, clockRenewals, clockBeforeConfirmation,
	groupsOwner, groupsVouchCluster, groupsTwoGroupsApart,
	statusUnverified, statusConfirmed, statusAccept, statusStale, statusLiveBoundary, statusContested, statusNullAcceptFail,
}

// Propagation: edges a→b (1), a→c (3), b→c (1), reader {a}, d = .85, D = 3.
func propagateByHand() vectors.Case {
	a, b, c := .15, .15*.85*.25, .15*.85*.75+.15*.85*.85*.25
	return propagate("propagate_by_hand", "propagate.formula",
		"π = Σ (1−d)d^k (Pᵀ)^k s on three nodes, worked by hand; nothing is renormalised.",
		"a,b,1\na,c,3\nb,c,1\n", []string{"a"},
		m{"scores": m{"a": a, "b": b, "c": c}, "undistributed": 1 - a - b - c, "unknownTrustSet": []any{}})
}

func propagateParallelEdgesAdd() vectors.Case {
	c := propagate("propagate_parallel_edges_add", "propagate.parallel_edges",
		"Two edges a→b of weight 1 add to 2, equal to a→c of weight 2.",
		"a,b,1\na,b,1\na,c,2\n", []string{"a"},
		m{"scores": m{"a": .15, "b": .15 * .85 * .5, "c": .15 * .85 * .5}})
	c.Depth = i(1)
	return c
}

func propagateSelfLoopDropped() vectors.Case {
	return propagate("propagate_self_loop_dropped", "propagate.self_loops",
		"A self-loop carries nothing: a's only trust goes to b.",
		"a,a,50\na,b,1\n", []string{"a"},
		m{"scores": m{"a": .15, "b": .15 * .85}, "undistributed": 1 - .15 - .15*.85})
}

func propagateNonPositiveNoTrust() vectors.Case {
	return propagate("propagate_nonpositive_no_trust", "propagate.nonpositive",
		"Edges of weight −3 and 0 carry no trust; b and c are nodes with no score.",
		"a,b,-3\na,c,0\na,d,1\n", []string{"a"},
		m{"scores": m{"a": .15, "d": .15 * .85}})
}

func propagateNegativeDoesNotCancel() vectors.Case {
	return propagate("propagate_negative_does_not_cancel", "propagate.nonpositive",
		"Non-positive edges are dropped before parallel edges add: a negative a→b does not cancel a positive one.",
		"a,b,5\na,b,-5\na,c,5\n", []string{"a"},
		m{"scores": m{"a": .15, "b": .15 * .85 * .5, "c": .15 * .85 * .5}})
}

func propagateDanglingPassesNothing() vectors.Case {
	return propagate("propagate_dangling_passes_nothing", "propagate.dangling",
		"b has no positive out-edge: its mass stops there and is reported undistributed.",
		"a,b,1\n", []string{"a"},
		m{"scores": m{"a": .15, "b": .15 * .85}, "undistributed": 1 - .15 - .15*.85})
}

func propagateTrustSetDuplicate() vectors.Case {
	c := propagate("propagate_trust_set_duplicate", "propagate.trust_set",
		"An id listed twice counts once: a and b share the seed mass in halves.",
		"a,c,1\nb,c,1\n", []string{"a", "b", "a"},
		m{"scores": m{"a": .075, "b": .075, "c": .15 * .85}})
	c.Depth = i(1)
	return c
}

func propagateUnknownTrustSet() vectors.Case {
	return propagate("propagate_unknown_trust_set", "propagate.unknown_trust_set",
		"zz is not in the graph: it keeps its share at k = 0, passes nothing on and is listed.",
		"a,b,1\n", []string{"zz", "a"},
		m{"scores": m{"a": .075, "zz": .075, "b": .075 * .85}, "unknownTrustSet": []any{"zz"},
			"undistributed": 1 - .075 - .075 - .075*.85})
}

func propagateDepthZero() vectors.Case {
	c := propagate("propagate_depth_zero", "propagate.depth",
		"At depth 0 only the trust set scores, (1−d)/|T| each.",
		"a,b,1\n", []string{"a"}, m{"scores": m{"a": .15}, "undistributed": .85})
	c.Depth = i(0)
	return c
}

func propagateDampingChain() vectors.Case {
	c := propagate("propagate_damping_chain", "propagate.depth",
		"d = .5, D = 2 on the chain a→b→c→d: d is three hops away and gets nothing.",
		"a,b,1\nb,c,1\nc,d,1\n", []string{"a"},
		m{"scores": m{"a": .5, "b": .25, "c": .125}, "undistributed": .125})
	c.Damping, c.Depth = f(.5), i(2)
	return c
}

func sybilEdges() string {
	s := "r,h,1\nh,r,1\n"
	for _, x := range []string{"s1", "s2", "s3"} {
		for _, y := range []string{"s1", "s2", "s3"} {
			if x != y {
				s += x + "," + y + ",10\n"
			}
		}
	}
	return s
}

func propagateSybilClique() vectors.Case {
	// r: .15 + .15·.85² (k = 2, back from h); h: .15·.85 + .15·.85³.
	r, h := .15+.15*.85*.85, .15*.85+.15*.85*.85*.85
	return propagate("propagate_sybil_clique", "propagate.sybil",
		"A clique praising itself with weight 10 gets nothing: no edge from the reader's graph points into it.",
		sybilEdges(), []string{"r"}, m{"scores": m{"r": r, "h": h}})
}

func propagateSybilAttackEdge() vectors.Case {
	// h splits between r and s1. k1: h .85; k2: r .425, s1 .425; k3: h .85·.425, s2 .2125, s3 .2125.
	w := .15
	r := w + w*.85*.85*.5
	h := w*.85 + w*.85*.85*.85*.5
	s1 := w * .85 * .85 * .5
	s23 := w * .85 * .85 * .85 * .5 * .5
	return propagate("propagate_sybil_attack_edge", "propagate.sybil",
		"One attack edge h→s1 lets trust into the clique, within the bound d/(1−d)·π(h)·P(h→s1).",
		sybilEdges()+"h,s1,1\n", []string{"r"},
		m{"scores": m{"r": r, "h": h, "s1": s1, "s2": s23, "s3": s23}})
}

func propagateHeader() vectors.Case {
	return propagate("propagate_header", "edges.header",
		"A first line whose weight is not a number is a header; CRLF, blank lines and a time column are read.",
		"from,to,rating,time\r\n\r\n6,2,4,1289241911.72836\r\n", []string{"6"},
		m{"scores": m{"6": .15, "2": .15 * .85}})
}

func propagateCycleReturns() vectors.Case {
	// a→b→a: a at k = 0 and 2, b at k = 1 and 3.
	return propagate("propagate_cycle_returns", "propagate.formula",
		"Mass that comes back to the reader along a cycle counts again at its depth.",
		"a,b,1\nb,a,1\n", []string{"a"},
		m{"scores": m{"a": .15 + .15*.85*.85, "b": .15*.85 + .15*.85*.85*.85}})
}

func propagateNaNFail() vectors.Case {
	return propagate("propagate_nan_weight_fail", "edges.weight",
		"A NaN weight is refused, with its line number (2).",
		"a,b,1\nb,c,NaN\n", []string{"a"}, m{"error": "bad_weight", "line": 2.0})
}

func propagateInfFail() vectors.Case {
	return propagate("propagate_inf_weight_fail", "edges.weight",
		"A weight too large for a double is infinite, and refused with its line number (3).",
		"a,b,1\nb,c,1\nc,d,1e999\n", []string{"a"}, m{"error": "bad_weight", "line": 3.0})
}

func propagateEmptyTrustSetFail() vectors.Case {
	return propagate("propagate_empty_trust_set_fail", "propagate.trust_set",
		"An empty trust set is an error: reader-local trust flows only from it.",
		"a,b,1\n", []string{}, m{"error": "empty_trust_set"})
}

func propagateFieldsFail() vectors.Case {
	return propagate("propagate_fields_fail", "edges.fields",
		"A line of two fields is refused with its line number.",
		"a,b,1\na,b\n", []string{"a"}, m{"error": "bad_line", "line": 2.0})
}

func propagateDampingFail() vectors.Case {
	c := propagate("propagate_damping_fail", "propagate.options",
		"Damping 1 would keep nothing back and never converge: refused.",
		"a,b,1\n", []string{"a"}, m{"error": "bad_option"})
	c.Damping = f(1)
	return c
}

func propagateHeaderOnlyFirstFail() vectors.Case {
	return propagate("propagate_header_only_first_fail", "edges.header",
		"Only the first line may be a header: a later non-number weight is refused.",
		"a,b,1\nfrom,to,rating\n", []string{"a"}, m{"error": "bad_line", "line": 2.0})
}

// Global EigenTrust.
func globalReadme() vectors.Case {
	return global("global_readme", "global.fixed_point",
		"go-eigentrust's README input at a = .5: the exact fixed point 28/129, 62/129, 39/129; sd's empty row is replaced by p.",
		"ek,sd,100\nvm,sd,100\nek,vm,75\n", .5, map[string]float64{"ek": 50, "vm": 100},
		m{"scores": m{"ek": 28.0 / 129, "vm": 62.0 / 129, "sd": 39.0 / 129}})
}

func globalDanglingPreTrust() vectors.Case {
	// t_a = .5·t_b + .5, t_b = .5·t_a: t_a = 2/3.
	return global("global_dangling_pretrust", "global.dangling",
		"b passes nothing, so its row is p = (1, 0): t_a = 2/3, t_b = 1/3.",
		"a,b,1\n", .5, map[string]float64{"a": 1}, m{"scores": m{"a": 2.0 / 3, "b": 1.0 / 3}})
}

func globalPreTrustUnknownNode() vectors.Case {
	// p = (.5, 0, .5); by symmetry t_a = t_z = x, t_b = x/2; x = .4.
	return global("global_pretrust_unknown_node", "global.pretrust",
		"A pre-trust id absent from the graph is a node without edges, and is listed.",
		"a,b,1\n", .5, map[string]float64{"a": 1, "z": 1},
		m{"scores": m{"a": .4, "z": .4, "b": .2}, "unknownTrustSet": []any{"z"}})
}

func globalUniformPreTrust() vectors.Case {
	// p = (.5, .5); t_a = .425·t_b + .075, t_a + t_b = 1: t_a = .5/1.425.
	return global("global_uniform_pretrust", "global.pretrust",
		"Without pre-trust, p is uniform over the nodes.",
		"a,b,1\n", .15, nil, m{"scores": m{"a": .5 / 1.425, "b": 1 - .5/1.425}})
}

func globalNegativePreTrustFail() vectors.Case {
	return global("global_negative_pretrust_fail", "global.pretrust",
		"A negative pre-trust weight is refused.",
		"a,b,1\n", .5, map[string]float64{"a": -1}, m{"error": "bad_weight"})
}

func globalAlphaFail() vectors.Case {
	return global("global_alpha_fail", "global.options",
		"a = 0 has no unique fixed point: refused.",
		"a,b,1\n", 0, nil, m{"error": "bad_option"})
}

// Grounded contradictions. Weights are given for p, a, b, c, d, e.
var ones = []float64{1, 1, 1, 1, 1, 1}

func groundedNone() vectors.Case {
	return grounded("grounded_none", "grounded.labels", "A post nobody contradicts stands.",
		argGraph(ones[:1]), m{"rootLabel": "IN", "contested": false, "why": "no_contradiction", "labels": m{"p": "IN"}, "depths": m{"p": 0.0}})
}

func groundedOne() vectors.Case {
	return grounded("grounded_one", "grounded.labels", "One counted, unanswered contradiction stands: the post is OUT and contested.",
		argGraph(ones[:2], "a>p"), m{"rootLabel": "OUT", "contested": true, "why": "contradicted", "labels": m{"p": "OUT", "a": "IN"}})
}

func groundedRebutted() vectors.Case {
	return grounded("grounded_rebutted", "grounded.labels", "A contradiction that is itself contradicted is OUT, and the post stands.",
		argGraph(ones[:3], "a>p", "b>a"), m{"rootLabel": "IN", "contested": false, "why": "rebutted",
			"labels": m{"p": "IN", "a": "OUT", "b": "IN"}, "depths": m{"p": 0.0, "a": 1.0, "b": 2.0}})
}

func groundedCycle() vectors.Case {
	return grounded("grounded_cycle", "grounded.cycle", "a and b contradict each other: both UNDEC, and so is the post, contested by a cycle.",
		argGraph(ones[:3], "a>p", "b>a", "a>b"), m{"rootLabel": "UNDEC", "contested": true, "why": "cycle",
			"labels": m{"p": "UNDEC", "a": "UNDEC", "b": "UNDEC"}})
}

func groundedSelfAttack() vectors.Case {
	return grounded("grounded_self_attack", "grounded.cycle", "A self-attacking contradiction is a cycle of one: UNDEC.",
		argGraph(ones[:2], "a>p", "a>a"), m{"rootLabel": "UNDEC", "why": "cycle", "labels": m{"p": "UNDEC", "a": "UNDEC"}})
}

func groundedCap() vectors.Case {
	return grounded("grounded_cap", "grounded.depth_cap", "A chain of four: c at depth 3 has a counted attacker at depth 4, so c cannot be IN and the post is UNDEC by the cap.",
		argGraph(ones[:5], "a>p", "b>a", "c>b", "d>c"), m{"rootLabel": "UNDEC", "contested": true, "why": "depth_cap",
			"labels": m{"p": "UNDEC", "a": "UNDEC", "b": "UNDEC", "c": "UNDEC"}, "depths": m{"p": 0.0, "a": 1.0, "b": 2.0, "c": 3.0}})
}

func groundedCapStillOut() vectors.Case {
	return grounded("grounded_cap_still_out", "grounded.depth_cap", "c is capped, but e (depth 2, unattacked) attacks it: c is OUT, b IN, a OUT, p IN.",
		argGraph(ones[:6], "a>p", "b>a", "c>b", "d>c", "e>c", "e>a"), m{"rootLabel": "IN", "why": "rebutted",
			"labels": m{"p": "IN", "a": "OUT", "b": "IN", "e": "IN", "c": "OUT"}})
}

func groundedDepthZero() vectors.Case {
	c := grounded("grounded_depth_zero", "grounded.depth_cap", "At depth 0 any counted attacker leaves the root UNDEC.",
		argGraph(ones[:2], "a>p"), m{"rootLabel": "UNDEC", "contested": true, "why": "depth_cap", "labels": m{"p": "UNDEC"}})
	c.Depth = i(0)
	return c
}

func groundedLighterIgnored() vectors.Case {
	return grounded("grounded_lighter_ignored", "grounded.weight", "An attacker of weight 1 against an author of weight 2 does not count at factor 1.",
		argGraph([]float64{2, 1}, "a>p"), m{"rootLabel": "IN", "why": "no_contradiction", "labels": m{"p": "IN"}})
}

func groundedTieCounts() vectors.Case {
	c := grounded("grounded_tie_counts", "grounded.weight", "At factor .5, weight 1 against 2 is a tie, and ties count.",
		argGraph([]float64{2, 1}, "a>p"), m{"rootLabel": "OUT", "labels": m{"p": "OUT", "a": "IN"}})
	c.Factor = f(.5)
	return c
}

func groundedIgnoredRemovedFirst() vectors.Case {
	return grounded("grounded_ignored_removed_first", "grounded.weight", "b (weight .5) cannot rebut a (weight 1): its attack is removed, a stands.",
		argGraph([]float64{1, 1, .5}, "a>p", "b>a"), m{"rootLabel": "OUT", "labels": m{"p": "OUT", "a": "IN"}})
}

func groundedShortestDepth() vectors.Case {
	return grounded("grounded_shortest_depth", "grounded.depth", "b attacks both p and a: its depth is the shorter distance, 1.",
		argGraph(ones[:3], "a>p", "b>a", "b>p"), m{"depths": m{"p": 0.0, "a": 1.0, "b": 1.0},
			"labels": m{"p": "OUT", "a": "OUT", "b": "IN"}, "why": "contradicted"})
}

func groundedCycleAndCap() vectors.Case {
	c := grounded("grounded_cycle_and_cap", "grounded.cycle", "At depth 1, a is capped (b beyond it) and c attacks itself: both reasons are given.",
		argGraph(ones[:4], "a>p", "b>a", "c>p", "c>c"), m{"rootLabel": "UNDEC", "why": "cycle_and_depth_cap"})
	c.Depth = i(1)
	return c
}

func groundedUnknownAttackFail() vectors.Case {
	return grounded("grounded_unknown_attack_fail", "grounded.input", "An attack naming an argument that is not listed is refused.",
		argGraph(ones[:1], "z>p"), m{"error": "bad_graph"})
}

func groundedDuplicateIDFail() vectors.Case {
	return grounded("grounded_duplicate_id_fail", "grounded.input", "Two arguments with one id are refused.",
		[]byte(`{"root":"p","arguments":[{"id":"p","author":"x","weight":1},{"id":"p","author":"y","weight":1}],"attacks":[]}`),
		m{"error": "bad_graph"})
}

func groundedFactorFail() vectors.Case {
	c := grounded("grounded_factor_fail", "grounded.options", "A negative factor is refused.",
		argGraph(ones[:1]), m{"error": "bad_option"})
	c.Factor = f(-1)
	return c
}

// Signals.
const vouch = .15 * .85

func floorYoung() vectors.Case {
	return signal(vectors.KindFloor, "floor_young", "floor.age", "A key first seen 6.5 days ago has no floor.",
		m{"ageDays": 6.5, "floorCap": vouch / 10}, m{"floor": 0.0})
}

func floorLinear() vectors.Case {
	return signal(vectors.KindFloor, "floor_linear", "floor.age", "Half way from day 7 to day 30 the floor is half its cap.",
		m{"ageDays": 18.5, "floorCap": vouch / 10}, m{"floor": vouch / 20})
}

func floorCap() vectors.Case {
	return signal(vectors.KindFloor, "floor_cap", "floor.age", "From day 30 the floor is its cap.",
		m{"ageDays": 400.0, "floorCap": vouch / 10}, m{"floor": vouch / 10})
}

func floorCapTooHighFail() vectors.Case {
	return signal(vectors.KindFloor, "floor_cap_too_high_fail", "floor.cap", "A cap as large as one vouch ((1−d)·d) is refused.",
		m{"ageDays": 40.0, "floorCap": vouch}, m{"error": "bad_option"})
}

func floorDefaultCap() vectors.Case {
	return signal(vectors.KindFloor, "floor_default_cap", "floor.cap", "Without a floorCap the cap is the default, a tenth of one vouch.",
		m{"ageDays": 40.0}, m{"floor": vouch / 10})
}

func floorUnknownMemberFail() vectors.Case {
	return signal(vectors.KindFloor, "floor_unknown_member_fail", "signal.query", "An input member the rule does not name is refused, not ignored.",
		m{"ageDays": 40.0, "age": 40.0}, m{"error": "bad_signal"})
}

func floorGraphCarriesWeight() vectors.Case {
	return signal(vectors.KindFloor, "floor_graph_carries_weight", "floor.graph",
		"Once the reader's graph carries weight (its propagation gives a positive score to a key that is not its own), no key gets a floor, however old.",
		m{"ageDays": 400.0, "graphCarriesWeight": true}, m{"floor": 0.0})
}

func floorGraphEmpty() vectors.Case {
	return signal(vectors.KindFloor, "floor_graph_empty", "floor.graph", "While the reader's graph carries no weight, a key of 30 days or more gets the whole cap.",
		m{"ageDays": 400.0, "graphCarriesWeight": false}, m{"floor": vouch / 10})
}

func floorGraphCapCheckedFail() vectors.Case {
	return signal(vectors.KindFloor, "floor_graph_cap_checked_fail", "floor.cap", "The cap is checked even when the graph carries weight and the floor is 0.",
		m{"ageDays": 40.0, "floorCap": 0.2, "graphCarriesWeight": true}, m{"error": "bad_option"})
}

func floorNullCapFail() vectors.Case {
	return signal(vectors.KindFloor, "floor_null_cap_fail", "signal.query", "A member given as null is refused, even one that may be absent: null is not the default.",
		m{"ageDays": 40.0, "floorCap": nil}, m{"error": "bad_signal"})
}

func decayConfirm() vectors.Case {
	return signal(vectors.KindDecay, "decay_confirm", "decay.half_life", "A confirmation 360 days old weighs a quarter.",
		m{"kind": "confirm", "ageDays": 360.0}, m{"decay": .25})
}

func decayVote() vectors.Case {
	return signal(vectors.KindDecay, "decay_vote", "decay.half_life", "A vote 30 days old weighs half.",
		m{"kind": "vote", "ageDays": 30.0}, m{"decay": .5})
}

func clockRenewals() vectors.Case {
	return signal(vectors.KindClock, "clock_renewals", "decay.renewal",
		"Renewals at 10, 20, 45, 60, 80 seen at day 70: 10 and 45 count (20 and 60 are within 30 days), 80 is not yet seen.",
		m{"confirmedDay": 0.0, "renewalDays": []float64{20, 10, 45, 60, 80}, "asOf": 70.0}, m{"clock": 45.0})
}

func clockBeforeConfirmation() vectors.Case {
	return signal(vectors.KindClock, "clock_before_confirmation", "decay.renewal",
		"A renewal dated before the confirmation does not move the clock.",
		m{"confirmedDay": 100.0, "renewalDays": []float64{50}, "asOf": 200.0}, m{"clock": 100.0})
}

func groupsOwner() vectors.Case {
	return signal(vectors.KindGroups, "groups_owner", "diversity.owner",
		"Three keys declaring one owner confirm a post: they count once, at their best weight.",
		m{"keys": []m{{"id": "k1", "owner": "acme"}, {"id": "k2", "owner": "acme"}, {"id": "k3", "owner": "acme"}, {"id": "au"}},
			"author": "au", "signals": []m{{"key": "k1", "weight": .1}, {"key": "k2", "weight": .3}, {"key": "k3", "weight": .2}}},
		m{"tally": m{"weight": .3, "groups": 1.0, "self": 0.0}, "groups": m{"k1": "k1", "k2": "k1", "k3": "k1", "au": "au"}})
}

func groupsVouchCluster() vectors.Case {
	return signal(vectors.KindGroups, "groups_vouch_cluster", "diversity.vouch_cluster",
		"s1 is vouched only by the author; s2 only by s1 and the author: both are grouped with the author and count zero.",
		m{"keys": []m{{"id": "au"}, {"id": "s1", "vouchedBy": []string{"au"}}, {"id": "s2", "vouchedBy": []string{"s1", "au"}}, {"id": "x"}},
			"author": "au", "signals": []m{{"key": "s1", "weight": .5}, {"key": "s2", "weight": .5}, {"key": "x", "weight": .1}}},
		m{"tally": m{"weight": .1, "groups": 1.0, "self": 2.0}, "groups": m{"au": "au", "s1": "au", "s2": "au", "x": "x"}})
}

func groupsTwoGroupsApart() vectors.Case {
	return signal(vectors.KindGroups, "groups_two_groups_apart", "diversity.vouch_cluster",
		"A key vouched by keys of two groups stays in its own group.",
		m{"keys": []m{{"id": "a"}, {"id": "b"}, {"id": "c", "vouchedBy": []string{"a", "b"}}},
			"author": "z", "signals": []m{{"key": "a", "weight": .1}, {"key": "b", "weight": .2}, {"key": "c", "weight": .4}}},
		m{"tally": m{"weight": .7, "groups": 3.0, "self": 0.0}, "groups": m{"a": "a", "b": "b", "c": "c"}})
}

func statusCase(name, desc string, contested bool, confs []m, want string) vectors.Case {
	if confs == nil {
		confs = []m{}
	}
	return signal(vectors.KindStatus, name, "status", desc, m{"contested": contested, "confirmations": confs}, m{"status": want})
}

func statusUnverified() vectors.Case {
	return statusCase("status_unverified", "A confirmation from a key without weight does not confirm.", false,
		[]m{{"weight": 0.0, "decay": 1.0}}, "unverified")
}

func statusConfirmed() vectors.Case {
	return statusCase("status_confirmed", "One live confirmation with evidence from a key with weight confirms.", false,
		[]m{{"weight": .01, "decay": .9}}, "confirmed")
}

func statusAccept() vectors.Case {
	return statusCase("status_accept", "The asker's accept confirms whatever the asker's weight.", false,
		[]m{{"weight": 0.0, "decay": .9, "accept": true}}, "confirmed")
}

func statusNullAcceptFail() vectors.Case {
	return signal(vectors.KindStatus, "status_null_accept_fail", "signal.query", "An accept given as null is refused, not read as false.",
		m{"confirmations": []m{{"weight": .1, "decay": 1.0, "accept": nil}}}, m{"error": "bad_signal"})
}

func statusStale() vectors.Case {
	return statusCase("status_stale", "Confirmed once, but every confirmation is past two half-lives: stale.", false,
		[]m{{"weight": .5, "decay": .2}, {"weight": .5, "decay": .1}}, "stale")
}

func statusLiveBoundary() vectors.Case {
	return statusCase("status_live_boundary", "A decay factor of exactly .25 is still live.", false,
		[]m{{"weight": .5, "decay": .25}}, "confirmed")
}

func statusContested() vectors.Case {
	return statusCase("status_contested", "A standing contradiction makes the post contested, however confirmed.", true,
		[]m{{"weight": .5, "decay": 1.0, "accept": true}}, "contested")
}
