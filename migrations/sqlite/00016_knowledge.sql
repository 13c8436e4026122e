-- Knowledge that lasts: evidence objects on positions, content-addressed
-- artifacts, the consulting agent's accept, digests and their refs. See the
-- PostgreSQL migration for the comments.

-- +goose Up
ALTER TABLE feedback ADD COLUMN evidence_type TEXT
    CHECK (evidence_type IN ('test', 'repro', 'hash', 'run', 'source'));
ALTER TABLE feedback ADD COLUMN evidence_detail TEXT;
ALTER TABLE feedback ADD COLUMN evidence_artifact TEXT;
ALTER TABLE feedback ADD COLUMN evidence_env TEXT;
ALTER TABLE feedback ADD COLUMN evidence_factor BIGINT NOT NULL DEFAULT 1000
    CHECK (evidence_factor BETWEEN 1000 AND 10000);
CREATE INDEX feedback_evidence_artifact ON feedback (evidence_artifact) WHERE evidence_artifact IS NOT NULL;
ALTER TABLE feedback_history ADD COLUMN evidence TEXT NOT NULL DEFAULT '';
ALTER TABLE feedback ADD COLUMN renewed_at TIMESTAMP;
CREATE TABLE position_renewals (
    feedback_id BIGINT NOT NULL REFERENCES feedback (id),
    renewed_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (feedback_id, renewed_at)
);

CREATE TABLE artifacts (
    digest     TEXT PRIMARY KEY,
    size       BIGINT NOT NULL CHECK (size BETWEEN 0 AND 1048576),
    content    BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE TABLE artifact_uploads (
    digest     TEXT NOT NULL REFERENCES artifacts (digest),
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (digest, agent_id)
);

CREATE TABLE consultation_accepts (
    receipt_id BIGINT PRIMARY KEY REFERENCES receipts (id),
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    memory_id  BIGINT NOT NULL REFERENCES memories (id),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX consultation_accepts_memory ON consultation_accepts (memory_id);

ALTER TABLE memories ADD COLUMN kind TEXT NOT NULL DEFAULT 'memory' CHECK (kind IN ('memory', 'digest'));

-- SQLite cannot change a CHECK constraint: memory_links is rebuilt.
CREATE TABLE memory_links_new (
    memory_id BIGINT NOT NULL REFERENCES memories (id),
    kind      TEXT NOT NULL CHECK (kind IN ('derivedFrom', 'extends', 'supersedes', 'contradicts', 'refs')),
    target_id BIGINT NOT NULL REFERENCES memories (id),
    position  INTEGER NOT NULL,
    PRIMARY KEY (memory_id, kind, target_id),
    CHECK (memory_id <> target_id)
);
INSERT INTO memory_links_new SELECT memory_id, kind, target_id, position FROM memory_links;
DROP TABLE memory_links;
ALTER TABLE memory_links_new RENAME TO memory_links;
CREATE INDEX memory_links_target ON memory_links (target_id, kind);

DROP TRIGGER feedback_trust_edge_insert;
DROP TRIGGER feedback_trust_edge_update;
-- +goose StatementBegin
CREATE TRIGGER feedback_trust_edge_insert AFTER INSERT ON feedback
WHEN NEW.eligible AND NEW.weight * NEW.evidence_factor / 1000 > 0 AND NEW.type IN ('corroborate', 'useful', 'used_successfully')
    AND (SELECT author_id FROM memories WHERE id = NEW.memory_id) <> NEW.evaluator_id
BEGIN
    INSERT INTO trust_edges (source_id, target_id, weight)
        SELECT NEW.evaluator_id, author_id, NEW.weight * NEW.evidence_factor / 1000 FROM memories WHERE id = NEW.memory_id
        ON CONFLICT (source_id, target_id) DO UPDATE SET weight = weight + excluded.weight;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER feedback_trust_edge_update AFTER UPDATE OF type, weight, eligible, evidence_factor ON feedback
WHEN (SELECT author_id FROM memories WHERE id = NEW.memory_id) <> NEW.evaluator_id
BEGIN
    UPDATE trust_edges SET weight = MAX(weight - OLD.weight * OLD.evidence_factor / 1000, 0)
        WHERE OLD.eligible AND OLD.type IN ('corroborate', 'useful', 'used_successfully')
        AND source_id = OLD.evaluator_id AND target_id = (SELECT author_id FROM memories WHERE id = OLD.memory_id);
    INSERT INTO trust_edges (source_id, target_id, weight)
        SELECT NEW.evaluator_id, author_id, NEW.weight * NEW.evidence_factor / 1000 FROM memories
        WHERE id = NEW.memory_id AND NEW.eligible AND NEW.weight * NEW.evidence_factor / 1000 > 0
        AND NEW.type IN ('corroborate', 'useful', 'used_successfully')
        ON CONFLICT (source_id, target_id) DO UPDATE SET weight = weight + excluded.weight;
    DELETE FROM trust_edges WHERE source_id = NEW.evaluator_id
        AND target_id = (SELECT author_id FROM memories WHERE id = NEW.memory_id) AND weight = 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER feedback_trust_edge_insert;
DROP TRIGGER feedback_trust_edge_update;
-- +goose StatementBegin
CREATE TRIGGER feedback_trust_edge_insert AFTER INSERT ON feedback
WHEN NEW.eligible AND NEW.weight > 0 AND NEW.type IN ('corroborate', 'useful', 'used_successfully')
    AND (SELECT author_id FROM memories WHERE id = NEW.memory_id) <> NEW.evaluator_id
BEGIN
    INSERT INTO trust_edges (source_id, target_id, weight)
        SELECT NEW.evaluator_id, author_id, NEW.weight FROM memories WHERE id = NEW.memory_id
        ON CONFLICT (source_id, target_id) DO UPDATE SET weight = weight + excluded.weight;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER feedback_trust_edge_update AFTER UPDATE OF type, weight, eligible ON feedback
WHEN (SELECT author_id FROM memories WHERE id = NEW.memory_id) <> NEW.evaluator_id
BEGIN
    UPDATE trust_edges SET weight = MAX(weight - OLD.weight, 0)
        WHERE OLD.eligible AND OLD.type IN ('corroborate', 'useful', 'used_successfully')
        AND source_id = OLD.evaluator_id AND target_id = (SELECT author_id FROM memories WHERE id = OLD.memory_id);
    INSERT INTO trust_edges (source_id, target_id, weight)
        SELECT NEW.evaluator_id, author_id, NEW.weight FROM memories
        WHERE id = NEW.memory_id AND NEW.eligible AND NEW.weight > 0 AND NEW.type IN ('corroborate', 'useful', 'used_successfully')
        ON CONFLICT (source_id, target_id) DO UPDATE SET weight = weight + excluded.weight;
    DELETE FROM trust_edges WHERE source_id = NEW.evaluator_id
        AND target_id = (SELECT author_id FROM memories WHERE id = NEW.memory_id) AND weight = 0;
END;
-- +goose StatementEnd
DELETE FROM memory_links WHERE kind = 'refs';
ALTER TABLE memories DROP COLUMN kind;
DROP TABLE position_renewals;
ALTER TABLE feedback DROP COLUMN renewed_at;
DROP TABLE consultation_accepts;
DROP TABLE artifact_uploads;
DROP TABLE artifacts;
DROP INDEX feedback_evidence_artifact;
ALTER TABLE feedback DROP COLUMN evidence_factor;
ALTER TABLE feedback DROP COLUMN evidence_env;
ALTER TABLE feedback DROP COLUMN evidence_artifact;
ALTER TABLE feedback DROP COLUMN evidence_detail;
ALTER TABLE feedback DROP COLUMN evidence_type;
ALTER TABLE feedback_history DROP COLUMN evidence;
