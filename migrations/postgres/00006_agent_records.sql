-- What agents record for their passports: memory visibility, applicability
-- claims and lineage links, outcome reports, declared capabilities, the
-- per-subject revision token, the immutable skill-trust history and the
-- daily network counters.

-- +goose Up
-- A private memory is a research memory only its author reads; it may be
-- linked as a lineage ancestor for de-duplication and is never exposed.
-- applies_claim is the author's appliesTo object: {"skill": ..., and the six
-- task-context dimensions}; the older applies_to label array is kept as
-- written and no longer shown. content_hash becomes "sha256:" and the hex
-- SHA-256 of the content as stored.
ALTER TABLE memories ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'private'));
ALTER TABLE memories ADD COLUMN applies_claim TEXT NOT NULL DEFAULT '{}';
UPDATE memories SET content_hash = 'sha256:' || content_hash WHERE content_hash NOT LIKE 'sha256:%';

-- Lineage links, as the author gave them, in the order given. The single
-- lineage relation of earlier versions becomes one link.
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

-- An evaluator's current outcome report on a memory it consumed. success
-- and failure are also its used_successfully / used_unsuccessfully
-- position (feedback_id, at feedback_revision); partial and uncertain
-- have no reputation effect. context is the reported task context.
CREATE TABLE memory_outcomes (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_id         BIGINT NOT NULL REFERENCES memories (id),
    evaluator_id      BIGINT NOT NULL REFERENCES agents (id),
    outcome           TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'partial', 'uncertain')),
    context           TEXT NOT NULL DEFAULT '{}',
    feedback_id       BIGINT REFERENCES feedback (id),
    feedback_revision INTEGER,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    UNIQUE (memory_id, evaluator_id),
    CHECK ((feedback_id IS NULL) = (outcome IN ('partial', 'uncertain')))
);

-- Declared capabilities: claims with no evidentiary weight.
CREATE TABLE agent_capabilities (
    agent_id    BIGINT NOT NULL REFERENCES agents (id),
    name        TEXT NOT NULL,
    declared_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (agent_id, name)
);

-- A random token per subject, replaced in the same transaction as any
-- write that changes the subject's evidence. A missing row is the
-- revision "".
CREATE TABLE skill_trust_revisions (
    agent_id   BIGINT PRIMARY KEY REFERENCES agents (id),
    revision   TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- Skill passports read through the trust service: never request context
-- or a reader's identity. Append-only.
CREATE TABLE skill_trust_history (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subject_id      BIGINT NOT NULL REFERENCES agents (id),
    skill           TEXT NOT NULL,
    policy          TEXT NOT NULL,
    source_revision TEXT NOT NULL,
    assessed_at     TIMESTAMPTZ NOT NULL,
    state           TEXT NOT NULL,
    estimate        BIGINT,
    operators       INTEGER NOT NULL CHECK (operators >= 0),
    contradictions  INTEGER NOT NULL CHECK (contradictions >= 0),
    assessment_hash TEXT NOT NULL
);
CREATE INDEX skill_trust_history_subject ON skill_trust_history (subject_id, skill, id);
CREATE TRIGGER skill_trust_history_append_only BEFORE UPDATE OR DELETE ON skill_trust_history
    FOR EACH ROW EXECUTE FUNCTION passportkit_refuse_rewrite();
CREATE TRIGGER skill_trust_history_no_truncate BEFORE TRUNCATE ON skill_trust_history
    FOR EACH STATEMENT EXECUTE FUNCTION passportkit_refuse_rewrite();

-- Daily counters of the trust model's network metrics (UTC days).
CREATE TABLE network_metrics (
    day   DATE NOT NULL,
    name  TEXT NOT NULL CHECK (name IN ('skill_assessments_generated', 'skill_evidence_updates',
        'skill_contested_assessments', 'skill_insufficient_evidence', 'skill_state_changes',
        'skill_estimate_changes', 'skill_cross_operator_gains')),
    value BIGINT NOT NULL CHECK (value >= 0),
    PRIMARY KEY (day, name)
);
