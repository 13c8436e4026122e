package gen

import (
	e "github.com/remnant/passportkit/evidence"
)

var all = []func() spec{
	// skills-1: aliases, hierarchy, unknown terms.
	ontologyAliasPostgres, ontologyAliasPostgreSQL, ontologyAliasPG, ontologyAliasTuning, ontologyAliasMCPDebugging,
	ontologyChildToParent, ontologyParentToChild, ontologySiblings, ontologySQLiteUnrelated,
	ontologyUnknownExact, ontologyUnknownNotAssigned, ontologyNFKC,
	// Context.
	contextExact, contextMismatch, contextMissing, contextMismatchOverMissing, contextUnspecifiedTask,
	contextExtraLabelsIgnored, contextLabelsNormalised, contextAllDimensions, contextConstraintsMismatch,
	// Eligibility and ownership.
	eligibilityDistinct, eligibilityUnknown, eligibilitySelf, eligibilityShared, eligibilityHistoricalBinding,
	eligibilityUnknownPool,
	// Decay and staleness.
	decayHalfLife, decayTwoHalfLives, staleAfterTwoYears, staleSelfReportDoesNotRefresh, staleRefreshedByEligible,
	// Caps.
	capActorRotation, capOperator, capOperatorBoundary, capUnknownBoundary, capUnknownOver, capLineage,
	capLineageBoundary, capOperatorContext, capSmallestFactor, capSymmetricMix, capRelabelContexts,
	// Lineage.
	lineageVersionRoot, lineageContentHash, lineageDerivedFrom, lineageExtends, lineageSupersedes,
	lineageRepostKeepsFailure, lineageRepostCannotHideContradiction, lineageMirrorOnce, lineageActorsShareCap,
	// Estimate.
	estimateAllSuccess, estimateBelowMinimum, estimateBoundary, estimateOneOperator, estimateOneValidator,
	estimateNonBinaryExcluded, estimateTruncated, estimateSingleSuccess, estimateFractional, estimateFractionalBelow,
	// Levels and states.
	levelModerateBoundary, levelModerateBelowContexts, levelModerateBelowObservations, levelStrongBoundary,
	levelStrongBelowOperators, levelCorroborationsInsufficient,
	missingSkillNew, declaredOnly, publicationCreatesNoSuccess, adverseOutcomes, adverseTieSupported,
	contestedOverStale, staleOverSupported,
	// Visibility and calibration.
	visibilityNegativeSelfFailure, visibilityLimitedSuccessOnly,
	calibrationAvailable, calibrationBelowOutcomes, calibrationBelowOperators, retrospectivePredictionFail,
	// Contradictions and corrections.
	contradictionContests, contradictionSharedNotEligible, contradictionUnknownEligible, contradictionResolved,
	contradictionRevisionDoesNotResolve, contradictionWithdrawalDoesNotResolve, contradictionSuccessDoesNotResolve,
	correctionAfterFailure, correctionBeforeContraryNoSignal, resolutionByOtherFail, contradictionOtherSkill,
	resolutionAfterAtIgnored,
	// Quality tiers.
	qualitySelfClaimFail, qualityHashDoesNotRaise, qualityTierKeptNotWeighted,
	// Input rules.
	parseDuplicateMemberFail, parseUnknownMemberFail, parseDuplicateIDFail, parseInconsistentReporterFail,
	parseDanglingMirrorFail, parseNonCanonicalFail, taskBlankSkillFail, laterRecordsIgnored,
}

func one(name, rule, desc, term, task string, app float64) spec {
	return spec{name: name, rule: rule, desc: desc, skill: task, records: []R{rec("ev_1", skill(term))},
		expect: exp{"applicability": exp{"ev_1": app}, "weights": exp{"ev_1": app}}}
}

func with(s spec, k string, v any) spec { s.expect[k] = v; return s }

func ontologyAliasPostgres() spec {
	return with(one("ontology_alias_postgres", "ontology.alias", "Postgres folds into PostgreSQL.", "Postgres", "PostgreSQL", 1), "skill", "PostgreSQL")
}

func ontologyAliasPostgreSQL() spec {
	return with(one("ontology_alias_postgre_sql", "ontology.alias", "Postgre SQL folds into PostgreSQL.", "Postgre SQL", "postgresql", 1), "skill", "PostgreSQL")
}

func ontologyAliasPG() spec {
	return with(one("ontology_alias_pg", "ontology.alias", "PG folds into PostgreSQL inside a longer term.", "PG indexing", "PostgreSQL indexing", 1), "skill", "PostgreSQL indexing")
}

func ontologyAliasTuning() spec {
	return with(one("ontology_alias_tuning", "ontology.alias", "Tuning folds into query optimization.", "Postgres tuning", "PostgreSQL query optimization", 1), "skill", "PostgreSQL query optimization")
}

func ontologyAliasMCPDebugging() spec {
	return with(one("ontology_alias_mcp_debugging", "ontology.alias", "MCP debugging folds into MCP reliability.", "MCP debugging", "MCP reliability", 1), "skill", "MCP reliability")
}

func ontologyChildToParent() spec {
	return one("ontology_child_to_parent", "ontology.applicability", "Evidence on a child applies to its parent at .75.", "PostgreSQL indexing", "PostgreSQL", 0.75)
}

func ontologyParentToChild() spec {
	return one("ontology_parent_to_child", "ontology.applicability", "Evidence on a parent applies to its child at .35.", "PostgreSQL", "PostgreSQL indexing", 0.35)
}

func ontologySiblings() spec {
	return one("ontology_siblings", "ontology.applicability", "Indexing and replication are separate siblings: .2.", "PostgreSQL replication", "PostgreSQL indexing", 0.2)
}

func ontologySQLiteUnrelated() spec {
	return spec{name: "ontology_sqlite_unrelated", rule: "ontology.applicability", desc: "Evidence does not transfer from SQLite to PostgreSQL.",
		records: []R{rec("ev_1", skill("SQLite")), rec("ev_2", skill("SQLite indexing"))},
		expect:  exp{"sourceIds": []any{}, "state": "new", "assessment": "NEW", "estimate": nil}}
}

func ontologyUnknownExact() spec {
	return spec{name: "ontology_unknown_exact", rule: "ontology.unknown", desc: "An unknown term normalises to itself and matches only itself.",
		skill: "kubernetes operators", records: []R{rec("ev_1", skill("Kubernetes  Operators"))},
		expect: exp{"skill": "kubernetes operators", "knownSkill": false, "applicability": exp{"ev_1": 1.0}, "limitations": []any{"unknown_skill"}}}
}

func ontologyUnknownNotAssigned() spec {
	return spec{name: "ontology_unknown_not_assigned", rule: "ontology.unknown", desc: "Unknown terms are never assigned to another capability.",
		records: []R{rec("ev_1", skill("PostgreSQL bouncer")), rec("ev_2", skill("Postgres administration"))},
		expect:  exp{"sourceIds": []any{}, "assessment": "NEW"}}
}

func ontologyNFKC() spec {
	return with(one("ontology_nfkc", "ontology.normalisation", "Normalisation applies NFKC, trims, collapses spaces and lower-cases.", "ＰＯＳＴＧＲＥＳ", "  Postgre   SQL ", 1), "skill", "PostgreSQL")
}

func ctxCase(name, desc string, task map[string]string, c e.Context, match float64, limits []any) spec {
	return spec{name: name, rule: "context", desc: desc, context: task, records: []R{rec("ev_1", ctx(c))},
		expect: exp{"contextMatch": exp{"ev_1": match}, "weights": exp{"ev_1": match}, "limitations": limits}}
}

func contextExact() spec {
	return ctxCase("context_exact", "A matching label keeps full relevance.", map[string]string{"workload": "high-write-concurrency"},
		e.Context{Workload: "high-write-concurrency"}, 1, []any{})
}

func contextMismatch() spec {
	return ctxCase("context_mismatch", "An explicit mismatch caps relevance at .2.", map[string]string{"workload": "high-write-concurrency"},
		e.Context{Workload: "read-mostly"}, 0.2, []any{"context_mismatch"})
}

func contextMissing() spec {
	return ctxCase("context_missing", "A missing requested dimension caps relevance at .5.", map[string]string{"workload": "high-write-concurrency"},
		e.Context{}, 0.5, []any{"context_missing"})
}

func contextMismatchOverMissing() spec {
	return ctxCase("context_mismatch_over_missing", "A mismatch caps harder than a missing dimension.", map[string]string{"workload": "high-write-concurrency", "version": "17"},
		e.Context{Workload: "read-mostly"}, 0.2, []any{"context_mismatch"})
}

func contextUnspecifiedTask() spec {
	return ctxCase("context_unspecified_task", "A task without context imposes no constraint.", nil,
		e.Context{Protocol: "postgres", Version: "17"}, 1, []any{})
}

func contextExtraLabelsIgnored() spec {
	return ctxCase("context_extra_labels_ignored", "Labels the task does not state are ignored.", map[string]string{"version": "17"},
		e.Context{Version: "17", Workload: "batch"}, 1, []any{})
}

func contextLabelsNormalised() spec {
	return ctxCase("context_labels_normalised", "Labels are compared in normal form.", map[string]string{"workload": "High-Write  Concurrency"},
		e.Context{Workload: " high-write concurrency"}, 1, []any{})
}

func contextAllDimensions() spec {
	c := e.Context{Domain: "payments", Environment: "production", Protocol: "postgres", Version: "17", Workload: "oltp", Constraints: "no-downtime"}
	return ctxCase("context_all_dimensions", "All six dimensions match.", map[string]string{"domain": "payments", "environment": "production",
		"protocol": "postgres", "version": "17", "workload": "oltp", "constraints": "no-downtime"}, c, 1, []any{})
}

func contextConstraintsMismatch() spec {
	return ctxCase("context_constraints_mismatch", "A mismatch on any dimension caps at .2.", map[string]string{"constraints": "no-downtime", "version": "17"},
		e.Context{Constraints: "maintenance-window", Version: "17"}, 0.2, []any{"context_mismatch"})
}

func eligibilityDistinct() spec {
	return spec{name: "eligibility_distinct", rule: "eligibility", desc: "Known distinct ownership has eligibility 1.",
		records: []R{rec("ev_1")}, expect: exp{"eligibility": exp{"ev_1": 1.0}, "weights": exp{"ev_1": 1.0},
			"effective": exp{"operators": 1.0, "validators": 1.0}, "state": "limited_evidence", "evidenceLevel": "VERY_LOW"}}
}

func eligibilityUnknown() spec {
	return spec{name: "eligibility_unknown", rule: "eligibility", desc: "Unknown ownership weighs .25 and earns no independent credit.",
		records: []R{rec("ev_1", unknown())}, expect: exp{"eligibility": exp{"ev_1": 0.25}, "weights": exp{"ev_1": 0.25},
			"effective": exp{"operators": 0.0, "validators": 0.0}, "limitations": []any{"unknown_ownership_discounted"}}}
}

func eligibilitySelf() spec {
	return spec{name: "eligibility_self", rule: "eligibility", desc: "A self report weighs zero.",
		records: []R{rec("ev_1", self())}, expect: exp{"weights": exp{"ev_1": 0.0}, "state": "new", "assessment": "NEW",
			"limitations": []any{"self_reports_carry_no_weight"}}}
}

func eligibilityShared() spec {
	return spec{name: "eligibility_shared", rule: "eligibility", desc: "A report from a shared owner weighs zero.",
		records: []R{rec("ev_1", shared("op_s"))}, expect: exp{"weights": exp{"ev_1": 0.0}, "state": "new", "assessment": "NEW",
			"limitations": []any{"shared_ownership_carries_no_weight"}}}
}

func eligibilityHistoricalBinding() spec {
	return spec{name: "eligibility_historical_binding", rule: "eligibility.historical_binding",
		desc:    "The operator bound at the event counts: the actor's later owner change mints nothing for its earlier report.",
		records: []R{rec("ev_1", by("act_x", "op_s"), shared("op_s"), age(10)), rec("ev_2", by("act_x", "op_n"))},
		expect:  exp{"weights": exp{"ev_1": 0.0, "ev_2": 1.0}, "effective": exp{"operators": 1.0, "validators": 1.0}}}
}

func eligibilityUnknownPool() spec {
	return spec{name: "eligibility_unknown_pool", rule: "caps.unknown_operators",
		desc:    "Six reporters of unknown ownership share one unit and count as no independent operator.",
		records: indep("u", 6, unknown()),
		expect: exp{"weights": exp{"ev_u1": 1.0 / 6}, "effective": exp{"binary": 1.0, "operators": 0.0, "validators": 0.0},
			"estimate": nil, "groups": exp{"unknown_operators/unknown": 2.0 / 3},
			"heldBackBy": []any{"estimate.binary_outcomes", "estimate.independent_operators", "estimate.independent_validators",
				"low.observations", "low.independent_operators", "low.independent_validators"}}}
}

func decayHalfLife() spec {
	return spec{name: "decay_half_life", rule: "weight.decay", desc: "A one-year-old report weighs half.",
		records: []R{rec("ev_1", age(365))}, expect: exp{"weights": exp{"ev_1": 0.5}, "stale": false}}
}

func decayTwoHalfLives() spec {
	return spec{name: "decay_two_half_lives", rule: "weight.decay", desc: "At exactly two years a report weighs a quarter and is not yet stale.",
		records: []R{rec("ev_1", age(730))}, expect: exp{"weights": exp{"ev_1": 0.25}, "stale": false, "assessment": "INSUFFICIENT_EVIDENCE"}}
}

func staleAfterTwoYears() spec {
	return spec{name: "stale_after_two_years", rule: "flags.stale", desc: "More than two years without eligible evidence is stale.",
		records: []R{rec("ev_1", age(731))}, expect: exp{"weights": exp{"ev_1": decay(731)}, "stale": true, "assessment": "STALE"}}
}

func staleSelfReportDoesNotRefresh() spec {
	return spec{name: "stale_self_report_does_not_refresh", rule: "flags.stale", desc: "A recent self report is not eligible evidence and does not refresh.",
		records: []R{rec("ev_1", age(800)), rec("ev_2", self())}, expect: exp{"stale": true, "assessment": "STALE"}}
}

func staleRefreshedByEligible() spec {
	return spec{name: "stale_refreshed_by_eligible", rule: "flags.stale", desc: "Recent eligible evidence, even of unknown ownership, refreshes.",
		records: []R{rec("ev_1", age(800)), rec("ev_2", unknown())}, expect: exp{"stale": false, "assessment": "INSUFFICIENT_EVIDENCE"}}
}

func capActorRotation() spec {
	var rs []R
	for i := 1; i <= 10; i++ {
		op := "op_1"
		if i > 5 {
			op = "op_2"
		}
		rs = append(rs, rec("ev_"+itoa(i), by("act_a", op), domain("d"+itoa(i))))
	}
	return spec{name: "cap_actor_rotation", rule: "caps.actor", desc: "Rotating one actor between owners neither escapes the actor cap of 8 nor makes two validators.",
		records: rs, expect: exp{"weights": exp{"ev_1": 0.8, "ev_10": 0.8}, "groups": exp{"actor/act_a": 0.8, "operator/op_1": 1.0},
			"effective": exp{"binary": 8.0, "operators": 2.0, "validators": 1.0}, "estimate": nil,
			"heldBackBy": []any{"estimate.independent_validators", "low.independent_validators"}, "evidenceLevel": "VERY_LOW"}}
}

func opActors(n int, opts ...opt) []R {
	var rs []R
	for i := 1; i <= n; i++ {
		rs = append(rs, rec("ev_"+itoa(i), append([]opt{by("act_"+itoa(i), "op_1"), domain("d" + itoa(i))}, opts...)...))
	}
	return rs
}

func capOperator() spec {
	return spec{name: "cap_operator", rule: "caps.operator", desc: "Ten actors of one operator share its cap of 8.",
		records: opActors(10), expect: exp{"weights": exp{"ev_1": 0.8}, "groups": exp{"operator/op_1": 0.8},
			"effective": exp{"observations": 8.0, "operators": 1.0, "validators": 10.0}, "estimate": nil}}
}

func capOperatorBoundary() spec {
	return spec{name: "cap_operator_boundary", rule: "caps.operator", desc: "Exactly 8 units from one operator are not reduced.",
		records: opActors(8), expect: exp{"weights": exp{"ev_1": 1.0}, "groups": exp{"operator/op_1": 1.0}, "effective": exp{"observations": 8.0}}}
}

func capUnknownBoundary() spec {
	return spec{name: "cap_unknown_boundary", rule: "caps.unknown_operators", desc: "Four unknown reporters make exactly one unit: not reduced.",
		records: indep("u", 4, unknown()), expect: exp{"weights": exp{"ev_u1": 0.25}, "groups": exp{"unknown_operators/unknown": 1.0},
			"effective": exp{"observations": 1.0}}}
}

func capUnknownOver() spec {
	return spec{name: "cap_unknown_over", rule: "caps.unknown_operators", desc: "Eight unknown reporters are halved to one unit together.",
		records: indep("u", 8, unknown()), expect: exp{"weights": exp{"ev_u1": 0.125}, "groups": exp{"unknown_operators/unknown": 0.5},
			"effective": exp{"observations": 1.0}, "limitations": []any{"caps_applied", "unknown_ownership_discounted"}}}
}

func capLineage() spec {
	return spec{name: "cap_lineage", rule: "caps.lineage", desc: "Four independent reports on one memory share the lineage cap of 3.",
		records: indep("", 4, mem("mem_x")), expect: exp{"weights": exp{"ev_1": 0.75, "ev_4": 0.75}, "groups": exp{"lineage/ev_1": 0.75},
			"effective": exp{"observations": 3.0, "operators": 4.0}}}
}

func capLineageBoundary() spec {
	return spec{name: "cap_lineage_boundary", rule: "caps.lineage", desc: "Three units in one lineage are not reduced.",
		records: indep("", 3, mem("mem_x")), expect: exp{"weights": exp{"ev_1": 1.0}, "groups": exp{"lineage/ev_1": 1.0}}}
}

func capOperatorContext() spec {
	return spec{name: "cap_operator_context", rule: "caps.operator_context", desc: "One operator in one identical context has one unit.",
		records: []R{rec("ev_1", by("act_a", "op_a")), rec("ev_2", by("act_a", "op_a")), rec("ev_3", by("act_a", "op_a"))},
		expect:  exp{"weights": exp{"ev_1": 1.0 / 3, "ev_3": 1.0 / 3}, "groups": exp{"operator_context/op_a#1": 1.0 / 3}, "effective": exp{"observations": 1.0}}}
}

func capSmallestFactor() spec {
	return spec{name: "cap_smallest_factor", rule: "caps.smallest", desc: "Each position takes the smallest factor among its groups.",
		records: []R{rec("ev_1", mem("mem_x")), rec("ev_2", mem("mem_x")), rec("ev_3", mem("mem_x")), rec("ev_4", mem("mem_x")),
			rec("ev_5", by("act_5", "op_1"))},
		expect: exp{"weights": exp{"ev_1": 0.5, "ev_2": 0.75, "ev_3": 0.75, "ev_4": 0.75, "ev_5": 0.5},
			"groups": exp{"lineage/ev_1": 0.75, "operator_context/op_1#1": 0.5}}}
}

func capSymmetricMix() spec {
	rs := opActors(12)
	for i := 6; i < 12; i++ {
		failure()(&rs[i])
	}
	return spec{name: "cap_symmetric_mix", rule: "caps.symmetric", desc: "A cap scales successes and failures alike.",
		records: rs, expect: exp{"effective": exp{"binary": 8.0, "successes": 4.0, "failures": 4.0}, "weights": exp{"ev_1": 2.0 / 3, "ev_12": 2.0 / 3}}}
}

func capRelabelContexts() spec {
	var rs []R
	for i := 1; i <= 12; i++ {
		rs = append(rs, rec("ev_"+itoa(i), by("act_1", "op_1"), domain("relabelled-"+itoa(i))))
	}
	return spec{name: "cap_relabel_contexts", rule: "caps.relabel", desc: "Giving every report its own context label does not lift the operator and actor caps.",
		records: rs, expect: exp{"effective": exp{"observations": 8.0, "contexts": 12.0}, "weights": exp{"ev_1": 2.0 / 3}}}
}

func mergeCase(name, desc string, l1, l2 e.Lineage) spec {
	return spec{name: name, rule: "lineage.cluster", desc: desc,
		records: []R{rec("ev_1", by("act_a", "op_a"), lineage(l1)), rec("ev_2", by("act_a", "op_a"), lineage(l2), domain("other"))},
		expect: exp{"weights": exp{"ev_1": 1.0, "ev_2": 0.0}, "role": exp{"ev_2": "merged"}, "counts": exp{"positions": 1.0},
			"limitations": []any{"representations_merged"}}}
}

func lineageVersionRoot() spec {
	return mergeCase("lineage_version_root", "Two versions under one version root are one lineage: one actor keeps one position.",
		e.Lineage{Memory: "mem_1", VersionRoot: "mem_r"}, e.Lineage{Memory: "mem_2", VersionRoot: "mem_r"})
}

func lineageContentHash() spec {
	h := "sha256:" + "ab" + repeat("0", 62)
	return mergeCase("lineage_content_hash", "Copies with one content hash are one lineage.", e.Lineage{Memory: "mem_1", ContentHash: h}, e.Lineage{Memory: "mem_2", ContentHash: h})
}

func linkCase(name, desc string, link func(*e.Lineage)) spec {
	rs := indep("", 4)
	for i := 1; i < 4; i++ {
		link(rs[i].Lineage)
	}
	return spec{name: name, rule: "lineage.cluster", desc: desc, records: rs,
		expect: exp{"weights": exp{"ev_1": 0.75, "ev_4": 0.75}, "groups": exp{"lineage/ev_1": 0.75}}}
}

func lineageDerivedFrom() spec {
	return linkCase("lineage_derived_from", "derivedFrom joins memories into one lineage.", func(l *e.Lineage) { l.DerivedFrom = []string{"mem_1"} })
}

func lineageExtends() spec {
	return linkCase("lineage_extends", "extends joins memories into one lineage.", func(l *e.Lineage) { l.Extends = []string{"mem_1"} })
}

func lineageSupersedes() spec {
	return linkCase("lineage_supersedes", "supersedes joins memories into one lineage.", func(l *e.Lineage) { l.Supersedes = []string{"mem_1"} })
}

func lineageRepostKeepsFailure() spec {
	return spec{name: "lineage_repost_keeps_failure", rule: "lineage.conservative_position", desc: "Reposting successes cannot hide an actor's failure.",
		records: []R{rec("ev_1", by("act_a", "op_a"), mem("mem_1"), failure(), age(5)), rec("ev_2", by("act_a", "op_a"), mem("mem_1")),
			rec("ev_3", by("act_a", "op_a"), mem("mem_1"), domain("a")), rec("ev_4", by("act_a", "op_a"), mem("mem_1"), domain("b"))},
		expect: exp{"weights": exp{"ev_1": decay(5), "ev_2": 0.0, "ev_3": 0.0, "ev_4": 0.0},
			"effective": exp{"successes": 0.0, "failures": decay(5)}, "visibility": "NEGATIVE_RESULTS_VISIBLE"}}
}

func lineageRepostCannotHideContradiction() spec {
	return spec{name: "lineage_repost_cannot_hide_contradiction", rule: "lineage.conservative_position",
		desc:    "An actor's unresolved contradiction holds its position over its own later success.",
		records: []R{rec("ev_1", by("act_a", "op_a"), typ(e.TypeContradiction), age(5)), rec("ev_2", by("act_a", "op_a"), mem("mem_1"))},
		expect: exp{"contested": true, "assessment": "CONTESTED", "weights": exp{"ev_2": 0.0}, "role": exp{"ev_2": "merged"},
			"effective": exp{"binary": 0.0}, "contradictions": exp{"ev_1": "unresolved"}}}
}

func lineageMirrorOnce() spec {
	return spec{name: "lineage_mirror_once", rule: "lineage.mirror", desc: "A trial and its mirrored feedback count once.",
		records: []R{rec("ev_1", by("act_a", "op_a"), noLineage()), rec("ev_2", by("act_a", "op_a"), noLineage(), mirrorOf("ev_1"))},
		expect:  exp{"counts": exp{"positions": 1.0}, "effective": exp{"successes": 1.0}, "role": exp{"ev_2": "merged"}}}
}

func lineageActorsShareCap() spec {
	return spec{name: "lineage_actors_share_cap", rule: "caps.lineage", desc: "Independent actors in one lineage share its cap of 3.",
		records: indep("", 6, mem("mem_x")), expect: exp{"weights": exp{"ev_1": 0.5, "ev_6": 0.5}, "effective": exp{"observations": 3.0, "validators": 6.0}}}
}

func estimateAllSuccess() spec {
	return spec{name: "estimate_all_success", rule: "estimate.wilson", desc: "Five independent successes give an estimate.",
		records: indep("", 5), expect: exp{"estimate": wilson(5, 5), "effective": exp{"binary": 5.0, "successes": 5.0},
			"evidenceLevel": "LOW", "state": "limited_evidence", "assessment": "SUPPORTED"}}
}

func estimateBelowMinimum() spec {
	rs := indep("", 4)
	failure()(&rs[3])
	return spec{name: "estimate_below_minimum", rule: "estimate.minimum", desc: "Four binary outcomes give no estimate.",
		records: rs, expect: exp{"estimate": nil, "heldBackBy": []any{"estimate.binary_outcomes", "low.observations"}, "assessment": "INSUFFICIENT_EVIDENCE"}}
}

func estimateBoundary() spec {
	rs := indep("", 5)
	failure()(&rs[4])
	return spec{name: "estimate_boundary", rule: "estimate.minimum", desc: "Exactly five binary outcomes give an estimate.",
		records: rs, expect: exp{"estimate": wilson(4, 5), "effective": exp{"binary": 5.0, "successes": 4.0, "failures": 1.0}}}
}

func estimateOneOperator() spec {
	return spec{name: "estimate_one_operator", rule: "estimate.minimum", desc: "Six successes from one operator give no estimate.",
		records: opActors(6), expect: exp{"estimate": nil, "effective": exp{"binary": 6.0, "binaryOperators": 1.0},
			"heldBackBy": []any{"estimate.independent_operators", "low.independent_operators"}}}
}

func estimateOneValidator() spec {
	var rs []R
	for i := 1; i <= 6; i++ {
		op := "op_1"
		if i > 3 {
			op = "op_2"
		}
		rs = append(rs, rec("ev_"+itoa(i), by("act_a", op), domain("d"+itoa(i))))
	}
	return spec{name: "estimate_one_validator", rule: "estimate.minimum", desc: "Two operators but one validator give no estimate.",
		records: rs, expect: exp{"estimate": nil, "effective": exp{"binaryOperators": 2.0, "binaryValidators": 1.0},
			"heldBackBy": []any{"estimate.independent_validators", "low.independent_validators"}}}
}

func estimateNonBinaryExcluded() spec {
	return spec{name: "estimate_non_binary_excluded", rule: "estimate.binary_only", desc: "Partial and uncertain outcomes stay visible and are not half-successes.",
		records: cat(indep("s", 5), indep("p", 3, outcome(e.OutcomePartial)), indep("u", 2, outcome(e.OutcomeUncertain))),
		expect: exp{"estimate": wilson(5, 5), "effective": exp{"binary": 5.0, "partial": 3.0, "uncertain": 2.0, "observations": 10.0},
			"counts":      exp{"byOutcome": exp{"success": 5.0, "partial": 3.0, "uncertain": 2.0}},
			"limitations": []any{"non_binary_outcomes_not_estimated"}, "evidenceLevel": "LOW"}}
}

func estimateTruncated() spec {
	return spec{name: "estimate_truncated", rule: "limits.truncation", desc: "A truncated collection shows no estimate and no robust level, and says so.",
		records: indep("", 5), truncated: true,
		expect: exp{"estimate": nil, "limitations": []any{"truncated_collection"}, "evidenceLevel": "LOW",
			"heldBackBy": []any{"estimate.complete_collection", "moderate.observations", "moderate.contexts", "moderate.complete_collection"}}}
}

func estimateSingleSuccess() spec {
	return spec{name: "estimate_single_success", rule: "estimate.minimum", desc: "One success in one observation is VERY_LOW and N/A.",
		records: []R{rec("ev_1")}, expect: exp{"estimate": nil, "evidenceLevel": "VERY_LOW", "state": "limited_evidence", "assessment": "INSUFFICIENT_EVIDENCE"}}
}

func estimateFractional() spec {
	rs := indep("", 10, age(365))
	for i := 5; i < 10; i++ {
		failure()(&rs[i])
	}
	return spec{name: "estimate_fractional", rule: "estimate.wilson", desc: "Ten half-weight outcomes make exactly five effective ones.",
		records: rs, expect: exp{"estimate": wilson(2.5, 5), "effective": exp{"binary": 5.0, "successes": 2.5}, "assessment": "SUPPORTED"}}
}

func estimateFractionalBelow() spec {
	rs := indep("", 10, age(366))
	for i := 5; i < 10; i++ {
		failure()(&rs[i])
	}
	return spec{name: "estimate_fractional_below", rule: "estimate.minimum", desc: "One day older, ten outcomes fall just short of five effective ones.",
		records: rs, expect: exp{"estimate": nil, "effective": exp{"binary": 10 * decay(366)}, "heldBackBy": []any{"estimate.binary_outcomes", "low.observations"}}}
}

func levelModerateBoundary() spec {
	return spec{name: "level_moderate_boundary", rule: "levels.moderate", desc: "8 observations, 2 operators, 2 validators, 2+ contexts: MODERATE.",
		records: grid("m", 2, 4), expect: exp{"evidenceLevel": "MODERATE", "state": "evidenced", "estimate": wilson(8, 8),
			"effective":  exp{"observations": 8.0, "operators": 2.0, "validators": 2.0, "contexts": 4.0},
			"heldBackBy": []any{"strong.observations", "strong.independent_operators", "strong.independent_validators", "strong.contexts"}}}
}

func levelModerateBelowContexts() spec {
	return spec{name: "level_moderate_below_contexts", rule: "levels.moderate", desc: "One context holds the level at LOW.",
		records: indep("", 8), expect: exp{"evidenceLevel": "LOW", "state": "limited_evidence", "heldBackBy": []any{"moderate.contexts"}}}
}

func levelModerateBelowObservations() spec {
	rs := grid("m", 2, 4)
	age(1)(&rs[0])
	return spec{name: "level_moderate_below_observations", rule: "levels.moderate", desc: "Just under 8 effective observations holds the level at LOW.",
		records: rs, expect: exp{"evidenceLevel": "LOW", "heldBackBy": []any{"moderate.observations"}, "effective": exp{"observations": 7 + decay(1)}}}
}

func levelStrongBoundary() spec {
	return spec{name: "level_strong_boundary", rule: "levels.strong", desc: "30 observations, 5 operators, 5 validators, 5+ contexts: STRONG.",
		records: grid("s", 5, 6), expect: exp{"evidenceLevel": "STRONG", "state": "well_evidenced", "heldBackBy": []any{},
			"effective": exp{"observations": 30.0, "operators": 5.0, "contexts": 6.0}}}
}

func levelStrongBelowOperators() spec {
	return spec{name: "level_strong_below_operators", rule: "levels.strong", desc: "Four operators hold the level at MODERATE however much they report.",
		records: grid("s", 4, 8), expect: exp{"evidenceLevel": "MODERATE", "state": "evidenced",
			"effective": exp{"observations": 32.0}, "heldBackBy": []any{"strong.independent_operators", "strong.independent_validators"}}}
}

func levelCorroborationsInsufficient() spec {
	return spec{name: "level_corroborations_insufficient", rule: "estimate.binary_only", desc: "Numerous corroborations without binary outcomes stay insufficient.",
		records: grid("c", 2, 4, typ(e.TypeCorroboration)), expect: exp{"evidenceLevel": "MODERATE", "assessment": "INSUFFICIENT_EVIDENCE",
			"estimate": nil, "effective": exp{"corroborations": 8.0, "binary": 0.0}}}
}

func missingSkillNew() spec {
	return spec{name: "missing_skill_new", rule: "states.new", desc: "A skill without evidence is NEW with N/A.",
		expect: exp{"state": "new", "assessment": "NEW", "estimate": nil, "evidenceLevel": "VERY_LOW", "visibility": "LIMITED_VISIBILITY",
			"contested": false, "stale": false, "calibration": exp{"status": "INSUFFICIENT_DATA"}}}
}

func declaredOnly() spec {
	return spec{name: "declared_only", rule: "states.declared", desc: "A declared capability weighs zero.",
		records: []R{rec("ev_1", typ(e.TypeDeclaration))}, expect: exp{"assessment": "NEW", "weights": exp{"ev_1": 0.0},
			"role": exp{"ev_1": "not_weighted"}, "limitations": []any{"declarations_carry_no_weight"}, "quality": exp{"ev_1": "DECLARED"}}}
}

func publicationCreatesNoSuccess() spec {
	return spec{name: "publication_creates_no_success", rule: "states.publication", desc: "Publishing and self-reported success create no success.",
		records: []R{rec("ev_1", typ(e.TypePublication)), rec("ev_2", self())},
		expect:  exp{"assessment": "NEW", "effective": exp{"successes": 0.0, "observations": 0.0}}}
}

func adverseOutcomes() spec {
	rs := indep("", 6)
	for i := 2; i < 6; i++ {
		failure()(&rs[i])
	}
	return spec{name: "adverse_outcomes", rule: "labels.adverse", desc: "Failures outweighing successes give EVIDENCED_WITH_ADVERSE_OUTCOMES.",
		records: rs, expect: exp{"assessment": "EVIDENCED_WITH_ADVERSE_OUTCOMES", "estimate": wilson(2, 6), "visibility": "NEGATIVE_RESULTS_VISIBLE"}}
}

func adverseTieSupported() spec {
	rs := indep("", 6)
	for i := 3; i < 6; i++ {
		failure()(&rs[i])
	}
	return spec{name: "adverse_tie_supported", rule: "labels.adverse", desc: "Equal failures and successes do not outweigh.",
		records: rs, expect: exp{"assessment": "SUPPORTED", "estimate": wilson(3, 6)}}
}

func contestedOverStale() spec {
	return spec{name: "contested_over_stale", rule: "labels.priority", desc: "CONTESTED comes before STALE; both flags stay set.",
		records: cat(indep("", 5, age(800)), []R{rec("ev_c", typ(e.TypeContradiction), age(800))}),
		expect:  exp{"assessment": "CONTESTED", "contested": true, "stale": true}}
}

func staleOverSupported() spec {
	return spec{name: "stale_over_supported", rule: "labels.priority", desc: "STALE comes before the supported or insufficient labels.",
		records: indep("", 12, age(731)), expect: exp{"assessment": "STALE", "stale": true, "contested": false}}
}

func visibilityNegativeSelfFailure() spec {
	return spec{name: "visibility_negative_self_failure", rule: "labels.visibility", desc: "A published failure, even the subject's own, makes negative results visible.",
		records: []R{rec("ev_1", self(), failure()), rec("ev_2")}, expect: exp{"visibility": "NEGATIVE_RESULTS_VISIBLE", "weights": exp{"ev_1": 0.0}}}
}

func visibilityLimitedSuccessOnly() spec {
	return spec{name: "visibility_limited_success_only", rule: "labels.visibility", desc: "Success-only evidence has limited visibility.",
		records: indep("", 3), expect: exp{"visibility": "LIMITED_VISIBILITY"}}
}

// calGrid is ops operators × ctxs contexts, each record with a prior
// prediction of .8 and every fifth record a failure.
func calGrid(ops, ctxs, drop int) []R {
	rs := grid("k", ops, ctxs, prediction(0.8, 1))
	rs = rs[:len(rs)-drop]
	for i := range rs {
		if i%5 == 4 {
			failure()(&rs[i])
		}
	}
	return rs
}

func calibrationAvailable() spec {
	return spec{name: "calibration_available", rule: "calibration", desc: "50 predicted outcomes in 50 lineages from 5 operators with enough mass give diagnostics.",
		records: calGrid(5, 10, 0), expect: exp{"calibration": exp{"status": "AVAILABLE", "outcomes": 50.0, "clusters": 50.0, "operators": 5.0,
			"mass": 40.0, "brier": 0.16, "meanPrediction": 0.8, "observedRate": 0.8}, "estimate": wilson(32, 40), "evidenceLevel": "STRONG"}}
}

func calibrationBelowOutcomes() spec {
	return spec{name: "calibration_below_outcomes", rule: "calibration", desc: "49 predicted outcomes are not enough.",
		records: calGrid(5, 10, 1), expect: exp{"calibration": exp{"status": "INSUFFICIENT_DATA", "outcomes": 49.0}}}
}

func calibrationBelowOperators() spec {
	return spec{name: "calibration_below_operators", rule: "calibration", desc: "Four operators are not enough.",
		records: calGrid(4, 13, 2), expect: exp{"calibration": exp{"status": "INSUFFICIENT_DATA", "outcomes": 50.0, "operators": 4.0}}}
}

func retrospectivePredictionFail() spec {
	return spec{name: "retrospective_prediction_fail", rule: "calibration.prior", desc: "A prediction not dated before its outcome is refused.",
		records: []R{rec("ev_1", prediction(0.9, 0))}, expect: exp{"error": "retrospective_prediction"}}
}

func contra(id string, opts ...opt) R {
	return rec(id, append([]opt{typ(e.TypeContradiction)}, opts...)...)
}

func contradictionContests() spec {
	return spec{name: "contradiction_contests", rule: "contradictions.contested", desc: "An eligible contradiction contests; the evidence stays visible.",
		records: cat(indep("", 5), []R{contra("ev_c")}),
		expect:  exp{"contested": true, "assessment": "CONTESTED", "estimate": wilson(5, 5), "contradictions": exp{"ev_c": "unresolved"}}}
}

func contradictionSharedNotEligible() spec {
	return spec{name: "contradiction_shared_not_eligible", rule: "contradictions.eligible", desc: "A contradiction from a shared owner is not eligible: visible, not contesting.",
		records: []R{rec("ev_1"), contra("ev_c", shared("op_s"))},
		expect:  exp{"contested": false, "contradictions": exp{"ev_c": "unresolved"}, "visibility": "NEGATIVE_RESULTS_VISIBLE"}}
}

func contradictionUnknownEligible() spec {
	return spec{name: "contradiction_unknown_eligible", rule: "contradictions.eligible", desc: "A contradiction of unknown ownership is eligible.",
		records: []R{rec("ev_1"), contra("ev_c", unknown())}, expect: exp{"contested": true, "assessment": "CONTESTED"}}
}

func contradictionResolved() spec {
	return spec{name: "contradiction_resolved", rule: "contradictions.resolved", desc: "A contradiction its reporter resolved no longer contests and stays visible.",
		records: []R{rec("ev_1"), contra("ev_c", by("act_c", "op_c"), age(10)), rec("ev_r", by("act_c", "op_c"), resolves("ev_c"))},
		expect:  exp{"contested": false, "contradictions": exp{"ev_c": "resolved"}, "visibility": "NEGATIVE_RESULTS_VISIBLE"}}
}

func contradictionRevisionDoesNotResolve() spec {
	return spec{name: "contradiction_revision_does_not_resolve", rule: "contradictions.corrections",
		desc:    "A revision after a contradiction is a correction signal: it resolves nothing and adds no weight.",
		records: []R{contra("ev_c", mem("mem_1"), age(10)), rec("ev_v", typ(e.TypeRevision), mem("mem_1"))},
		expect:  exp{"contested": true, "corrections": exp{"ev_v": "ev_c"}, "weights": exp{"ev_v": 0.0}}}
}

func contradictionWithdrawalDoesNotResolve() spec {
	return spec{name: "contradiction_withdrawal_does_not_resolve", rule: "contradictions.corrections", desc: "A withdrawal resolves nothing and is no correction signal.",
		records: []R{contra("ev_c", mem("mem_1"), age(10)), rec("ev_w", typ(e.TypeWithdrawal), mem("mem_1"))},
		expect:  exp{"contested": true, "corrections": exp{}}}
}

func contradictionSuccessDoesNotResolve() spec {
	return spec{name: "contradiction_success_does_not_resolve", rule: "contradictions.resolved", desc: "A later success from another actor resolves nothing.",
		records: []R{contra("ev_c", mem("mem_1"), age(10)), rec("ev_1", mem("mem_1"))},
		expect:  exp{"contested": true, "contradictions": exp{"ev_c": "unresolved"}, "weights": exp{"ev_1": 1.0}}}
}

func correctionAfterFailure() spec {
	return spec{name: "correction_after_failure", rule: "contradictions.corrections", desc: "A deprecation after a failure is a correction signal that erases nothing.",
		records: []R{rec("ev_f", failure(), mem("mem_1"), age(10)), rec("ev_d", typ(e.TypeDeprecation), mem("mem_1"))},
		expect:  exp{"corrections": exp{"ev_d": "ev_f"}, "weights": exp{"ev_f": decay(10), "ev_d": 0.0}, "effective": exp{"failures": decay(10)}}}
}

func correctionBeforeContraryNoSignal() spec {
	return spec{name: "correction_before_contrary_no_signal", rule: "contradictions.corrections", desc: "A revision before any contrary report is no correction signal.",
		records: []R{rec("ev_v", typ(e.TypeRevision), mem("mem_1"), age(10)), contra("ev_c", mem("mem_1"))},
		expect:  exp{"corrections": exp{}, "contested": true}}
}

func resolutionByOtherFail() spec {
	return spec{name: "resolution_by_other_fail", rule: "contradictions.resolved", desc: "Only a contradiction's own reporter can resolve it.",
		records: []R{contra("ev_c", by("act_c", "op_c"), age(3)), rec("ev_r", by("act_x", "op_x"), resolves("ev_c"))},
		expect:  exp{"error": "bad_resolution"}}
}

func contradictionOtherSkill() spec {
	return spec{name: "contradiction_other_skill", rule: "contradictions.relevant", desc: "A contradiction about an unrelated skill does not contest.",
		records: []R{rec("ev_1"), contra("ev_c", skill("SQLite"))}, expect: exp{"contested": false, "sourceIds": []any{"ev_1"}}}
}

func resolutionAfterAtIgnored() spec {
	return spec{name: "resolution_after_at_ignored", rule: "contradictions.resolved", desc: "A resolution dated after the assessment date does not count yet.",
		records: []R{contra("ev_c", by("act_c", "op_c"), age(3)), rec("ev_r", by("act_c", "op_c"), resolves("ev_c"), age(-2))},
		expect:  exp{"contested": true, "counts": exp{"laterRecords": 1.0}}}
}

func qualitySelfClaimFail() spec {
	return spec{name: "quality_self_claim_fail", rule: "quality.claims", desc: "The subject cannot claim a stronger tier for its own report.",
		records: []R{rec("ev_1", self(), quality(e.QualityMachineVerified))}, expect: exp{"error": "invalid_record"}}
}

func qualityHashDoesNotRaise() spec {
	h := "sha256:" + repeat("c", 64)
	return spec{name: "quality_hash_does_not_raise", rule: "quality.claims", desc: "A content hash leaves the tier where it is.",
		records: []R{rec("ev_1", lineage(e.Lineage{Memory: "mem_1", ContentHash: h}))},
		expect:  exp{"quality": exp{"ev_1": "OBSERVED_REUSE"}, "counts": exp{"byQuality": exp{"OBSERVED_REUSE": 1.0}}}}
}

func qualityTierKeptNotWeighted() spec {
	return spec{name: "quality_tier_kept_not_weighted", rule: "quality.tiers", desc: "A stronger tier supplied by a source is shown and does not change the weight.",
		records: []R{rec("ev_1", quality(e.QualityMachineVerified)), rec("ev_2", quality(e.QualityMultiIndependentVerification))},
		expect: exp{"quality": exp{"ev_1": "MACHINE_VERIFIED", "ev_2": "MULTI_INDEPENDENT_VERIFICATION"}, "weights": exp{"ev_1": 1.0, "ev_2": 1.0},
			"counts": exp{"byQuality": exp{"MACHINE_VERIFIED": 1.0, "MULTI_INDEPENDENT_VERIFICATION": 1.0}}}}
}

const okRecord = `{"id":"ev_1","type":"outcome","skill":"PostgreSQL","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_1","operator":"op_1","ownership":"distinct","date":"2026-01-01"}`

func parseDuplicateMemberFail() spec {
	return spec{name: "parse_duplicate_member_fail", rule: "input.strict", desc: "A member named twice is refused.",
		raw:    `{"evidence":[{"id":"ev_1","id":"ev_2","type":"outcome","skill":"PostgreSQL","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_1","operator":"op_1","ownership":"distinct","date":"2026-01-01"}]}`,
		expect: exp{"error": "json_duplicate_key"}}
}

func parseUnknownMemberFail() spec {
	return spec{name: "parse_unknown_member_fail", rule: "input.strict", desc: "An unknown record member is refused.",
		raw:    `{"evidence":[{"id":"ev_1","weight":8,"type":"outcome","skill":"PostgreSQL","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_1","operator":"op_1","ownership":"distinct","date":"2026-01-01"}]}`,
		expect: exp{"error": "malformed_record"}}
}

func parseDuplicateIDFail() spec {
	return spec{name: "parse_duplicate_id_fail", rule: "input.strict", desc: "Two records with one id are refused.",
		raw: `{"evidence":[` + okRecord + `,` + okRecord + `]}`, expect: exp{"error": "duplicate_id"}}
}

func parseInconsistentReporterFail() spec {
	return spec{name: "parse_inconsistent_reporter_fail", rule: "eligibility.subject", desc: "The subject cannot also appear as an independent reporter.",
		records: []R{rec("ev_1", self()), rec("ev_2", by("act_s", "op_z"))}, expect: exp{"error": "inconsistent_reporter"}}
}

func parseDanglingMirrorFail() spec {
	return spec{name: "parse_dangling_mirror_fail", rule: "input.references", desc: "A mirror of a missing record is refused.",
		records: []R{rec("ev_1", mirrorOf("ev_9"))}, expect: exp{"error": "dangling_reference"}}
}

func parseNonCanonicalFail() spec {
	return spec{name: "parse_non_canonical_fail", rule: "input.strict", desc: "An empty member is refused: a record must re-encode to itself.",
		raw:    `{"evidence":[{"id":"ev_1","type":"outcome","skill":"PostgreSQL","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_1","operator":"op_1","ownership":"distinct","date":"2026-01-01","context":{}}]}`,
		expect: exp{"error": "non_canonical_record"}}
}

func taskBlankSkillFail() spec {
	return spec{name: "task_blank_skill_fail", rule: "input.task", desc: "A blank skill term is refused.",
		skill: "   ", records: []R{rec("ev_1")}, expect: exp{"error": "invalid_task"}}
}

func laterRecordsIgnored() spec {
	return spec{name: "later_records_ignored", rule: "time.at", desc: "Records dated after the assessment date are left out.",
		records: []R{rec("ev_1", age(-1))}, expect: exp{"assessment": "NEW", "sourceIds": []any{}, "counts": exp{"laterRecords": 1.0},
			"limitations": []any{"later_records_ignored"}}}
}
