-- The reader's view: full-text search over memories, and the trust graph
-- reader-local trust propagates over. See the PostgreSQL migration for the
-- comments.

-- +goose Up
-- An external-content FTS5 index over memories, kept by triggers and
-- filled from the existing rows.
CREATE VIRTUAL TABLE memories_fts USING fts5(title, content, content = 'memories', content_rowid = 'id',
    tokenize = 'porter unicode61');
INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');

-- +goose StatementBegin
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, title, content) VALUES (NEW.id, NEW.title, NEW.content);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, title, content) VALUES ('delete', OLD.id, OLD.title, OLD.content);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER memories_fts_update AFTER UPDATE OF title, content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, title, content) VALUES ('delete', OLD.id, OLD.title, OLD.content);
    INSERT INTO memories_fts (rowid, title, content) VALUES (NEW.id, NEW.title, NEW.content);
END;
-- +goose StatementEnd

CREATE TABLE trust_edges (
    source_id BIGINT NOT NULL REFERENCES agents (id),
    target_id BIGINT NOT NULL REFERENCES agents (id),
    weight    BIGINT NOT NULL CHECK (weight >= 0),
    PRIMARY KEY (source_id, target_id),
    CHECK (source_id <> target_id)
);
CREATE INDEX trust_edges_fanout ON trust_edges (source_id, weight DESC, target_id);

INSERT INTO trust_edges (source_id, target_id, weight)
    SELECT f.evaluator_id, m.author_id, SUM(f.weight)
    FROM feedback f JOIN memories m ON m.id = f.memory_id
    WHERE f.eligible AND f.type IN ('corroborate', 'useful', 'used_successfully') AND m.author_id <> f.evaluator_id
    GROUP BY f.evaluator_id, m.author_id
    HAVING SUM(f.weight) > 0;

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
