-- What agents record for their passports: memory visibility, applicability
-- claims and lineage links, outcome reports, declared capabilities, the
-- per-subject revision token, the immutable skill-trust history and the
-- daily network counters. See the PostgreSQL migration for the comments.

-- +goose Up
ALTER TABLE memories ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'private'));
ALTER TABLE memories ADD COLUMN applies_claim TEXT NOT NULL DEFAULT '{}';
UPDATE memories SET content_hash = 'sha256:' || content_hash WHERE content_hash NOT LIKE 'sha256:%';

CREATE TABLE memory_links (
    memory_id BIGINT NOT NULL REFERENCES memories (id),
    kind      TEXT NOT NULL CHECK (kind IN ('derivedFrom', 'extends', 'supersedes', 'contradicts')),
    target_id BIGINT NOT NULL REFERENCES memories (id),
    position  INTEGER NOT NULL,
    PRIMARY KEY (memory_id, kind, target_id),
    CHECK (memory_id <> target_id)
);
CREATE INDEX memory_links_target ON memory_links (target_id, kind);
INSERT INTO memory_links (memory_id, kind, target_id, position)
    SELECT id, CASE lineage_relation WHEN 'derived_from' THEN 'derivedFrom' WHEN 'extends' THEN 'extends' ELSE 'supersedes' END,
        lineage_parent_id, 0
    FROM memories WHERE lineage_parent_id IS NOT NULL;

CREATE TABLE memory_outcomes (
    id                INTEGER PRIMARY KEY,
    memory_id         BIGINT NOT NULL REFERENCES memories (id),
    evaluator_id      BIGINT NOT NULL REFERENCES agents (id),
    outcome           TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'partial', 'uncertain')),
    context           TEXT NOT NULL DEFAULT '{}',
    feedback_id       BIGINT REFERENCES feedback (id),
    feedback_revision INTEGER,
    created_at        TIMESTAMP NOT NULL,
    updated_at        TIMESTAMP NOT NULL,
    UNIQUE (memory_id, evaluator_id),
    CHECK ((feedback_id IS NULL) = (outcome IN ('partial', 'uncertain')))
);

CREATE TABLE agent_capabilities (
    agent_id    BIGINT NOT NULL REFERENCES agents (id),
    name        TEXT NOT NULL,
    declared_at TIMESTAMP NOT NULL,
    PRIMARY KEY (agent_id, name)
);

CREATE TABLE skill_trust_revisions (
    agent_id   INTEGER PRIMARY KEY REFERENCES agents (id),
    revision   TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE skill_trust_history (
    id              INTEGER PRIMARY KEY,
    subject_id      BIGINT NOT NULL REFERENCES agents (id),
    skill           TEXT NOT NULL,
    policy          TEXT NOT NULL,
    source_revision TEXT NOT NULL,
    assessed_at     TIMESTAMP NOT NULL,
    state           TEXT NOT NULL,
    estimate        BIGINT,
    operators       INTEGER NOT NULL CHECK (operators >= 0),
    contradictions  INTEGER NOT NULL CHECK (contradictions >= 0),
    assessment_hash TEXT NOT NULL
);
CREATE INDEX skill_trust_history_subject ON skill_trust_history (subject_id, skill, id);

-- +goose StatementBegin
CREATE TRIGGER skill_trust_history_no_update BEFORE UPDATE ON skill_trust_history
BEGIN
    SELECT RAISE(ABORT, 'skill_trust_history is append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER skill_trust_history_no_delete BEFORE DELETE ON skill_trust_history
BEGIN
    SELECT RAISE(ABORT, 'skill_trust_history is append-only');
END;
-- +goose StatementEnd

CREATE TABLE network_metrics (
    day   TEXT NOT NULL,
    name  TEXT NOT NULL CHECK (name IN ('skill_assessments_generated', 'skill_evidence_updates',
        'skill_contested_assessments', 'skill_insufficient_evidence', 'skill_state_changes',
        'skill_estimate_changes', 'skill_cross_operator_gains')),
    value BIGINT NOT NULL CHECK (value >= 0),
    PRIMARY KEY (day, name)
);
