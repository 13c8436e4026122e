-- Knowledge that lasts (ADR 0019 §1, §1.1, §5.1; SPEC.md §15.8): evidence
-- objects on positions, content-addressed artifacts, the consulting
-- agent's accept, digests and their refs.

-- +goose Up
-- A position's evidence object: NULL columns for none. evidence_factor is
-- the weight factor (thousandths) the object gives the position where
-- reader trust weighs it: 1000 without an object, and the node's factors
-- for an object and for one citing an artifact (by default 1500 and
-- 2000), as they stood when the position was written.
ALTER TABLE feedback ADD COLUMN evidence_type TEXT
    CHECK (evidence_type IN ('test', 'repro', 'hash', 'run', 'source'));
ALTER TABLE feedback ADD COLUMN evidence_detail TEXT;
ALTER TABLE feedback ADD COLUMN evidence_artifact TEXT;
ALTER TABLE feedback ADD COLUMN evidence_env TEXT;
ALTER TABLE feedback ADD COLUMN evidence_factor BIGINT NOT NULL DEFAULT 1000
    CHECK (evidence_factor BETWEEN 1000 AND 10000);
CREATE INDEX feedback_evidence_artifact ON feedback (evidence_artifact) WHERE evidence_artifact IS NOT NULL;
-- The evidence object of each revision, as JSON; '' for none.
ALTER TABLE feedback_history ADD COLUMN evidence TEXT NOT NULL DEFAULT '';

-- Renewals (still_valid) of a standing confirmation that counted: the
-- first, then each at least 30 days after the last one counted.
-- feedback.renewed_at is the last one.
ALTER TABLE feedback ADD COLUMN renewed_at TIMESTAMP;
CREATE TABLE position_renewals (
    feedback_id BIGINT NOT NULL REFERENCES feedback (id),
    renewed_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (feedback_id, renewed_at)
);

-- Artifacts, content-addressed: digest is "sha256:" and the hex SHA-256 of
-- content. One row per content, whoever uploads it again.
CREATE TABLE artifacts (
    digest     TEXT PRIMARY KEY,
    size       BIGINT NOT NULL CHECK (size BETWEEN 0 AND 1048576),
    content    BYTEA NOT NULL,
    created_at TIMESTAMP NOT NULL
);
-- Who uploaded an artifact: an uploader may always read it back.
CREATE TABLE artifact_uploads (
    digest     TEXT NOT NULL REFERENCES artifacts (digest),
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (digest, agent_id)
);

-- The consulting agent's accept of the memory that solved its
-- consultation: one per receipt, the latest replaces the earlier.
CREATE TABLE consultation_accepts (
    receipt_id BIGINT PRIMARY KEY REFERENCES receipts (id),
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    memory_id  BIGINT NOT NULL REFERENCES memories (id),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX consultation_accepts_memory ON consultation_accepts (memory_id);

-- A memory is a memory or a digest (consolidated knowledge, with refs).
ALTER TABLE memories ADD COLUMN kind TEXT NOT NULL DEFAULT 'memory' CHECK (kind IN ('memory', 'digest'));

-- refs: the sources a memory (a digest above all) consolidates or cites.
ALTER TABLE memory_links DROP CONSTRAINT memory_links_kind_check;
ALTER TABLE memory_links ADD CONSTRAINT memory_links_kind_check
    CHECK (kind IN ('derivedFrom', 'extends', 'supersedes', 'contradicts', 'refs'));

-- Trust edges weigh a position by its evidence factor; each standing
-- accept adds 1000 (one full-weight position) from the consulting agent to
-- the accepted memory's author, written by the accept itself.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION passportkit_trust_edge() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    author BIGINT;
    delta  BIGINT := 0;
BEGIN
    SELECT author_id INTO author FROM memories WHERE id = NEW.memory_id;
    IF author = NEW.evaluator_id THEN
        RETURN NULL;
    END IF;
    IF NEW.eligible AND NEW.type IN ('corroborate', 'useful', 'used_successfully') THEN
        delta := NEW.weight * NEW.evidence_factor / 1000;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.eligible AND OLD.type IN ('corroborate', 'useful', 'used_successfully') THEN
        delta := delta - OLD.weight * OLD.evidence_factor / 1000;
    END IF;
    IF delta > 0 THEN
        INSERT INTO trust_edges (source_id, target_id, weight) VALUES (NEW.evaluator_id, author, delta)
            ON CONFLICT (source_id, target_id) DO UPDATE SET weight = trust_edges.weight + EXCLUDED.weight;
    ELSIF delta < 0 THEN
        UPDATE trust_edges SET weight = GREATEST(weight + delta, 0) WHERE source_id = NEW.evaluator_id AND target_id = author;
        DELETE FROM trust_edges WHERE source_id = NEW.evaluator_id AND target_id = author AND weight = 0;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP TRIGGER feedback_trust_edge ON feedback;
CREATE TRIGGER feedback_trust_edge AFTER INSERT OR UPDATE OF type, weight, eligible, evidence_factor ON feedback
    FOR EACH ROW EXECUTE FUNCTION passportkit_trust_edge();

-- +goose Down
DROP TRIGGER feedback_trust_edge ON feedback;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION passportkit_trust_edge() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    author BIGINT;
    delta  BIGINT := 0;
BEGIN
    SELECT author_id INTO author FROM memories WHERE id = NEW.memory_id;
    IF author = NEW.evaluator_id THEN
        RETURN NULL;
    END IF;
    IF NEW.eligible AND NEW.type IN ('corroborate', 'useful', 'used_successfully') THEN
        delta := NEW.weight;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.eligible AND OLD.type IN ('corroborate', 'useful', 'used_successfully') THEN
        delta := delta - OLD.weight;
    END IF;
    IF delta > 0 THEN
        INSERT INTO trust_edges (source_id, target_id, weight) VALUES (NEW.evaluator_id, author, delta)
            ON CONFLICT (source_id, target_id) DO UPDATE SET weight = trust_edges.weight + EXCLUDED.weight;
    ELSIF delta < 0 THEN
        UPDATE trust_edges SET weight = GREATEST(weight + delta, 0) WHERE source_id = NEW.evaluator_id AND target_id = author;
        DELETE FROM trust_edges WHERE source_id = NEW.evaluator_id AND target_id = author AND weight = 0;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER feedback_trust_edge AFTER INSERT OR UPDATE OF type, weight, eligible ON feedback
    FOR EACH ROW EXECUTE FUNCTION passportkit_trust_edge();
DELETE FROM memory_links WHERE kind = 'refs';
ALTER TABLE memory_links DROP CONSTRAINT memory_links_kind_check;
ALTER TABLE memory_links ADD CONSTRAINT memory_links_kind_check
    CHECK (kind IN ('derivedFrom', 'extends', 'supersedes', 'contradicts'));
ALTER TABLE memories DROP COLUMN kind;
DROP TABLE position_renewals;
ALTER TABLE feedback DROP COLUMN renewed_at;
DROP TABLE consultation_accepts;
DROP TABLE artifact_uploads;
DROP TABLE artifacts;
ALTER TABLE feedback_history DROP COLUMN evidence;
DROP INDEX feedback_evidence_artifact;
ALTER TABLE feedback DROP COLUMN evidence_factor;
ALTER TABLE feedback DROP COLUMN evidence_env;
ALTER TABLE feedback DROP COLUMN evidence_artifact;
ALTER TABLE feedback DROP COLUMN evidence_detail;
ALTER TABLE feedback DROP COLUMN evidence_type;
