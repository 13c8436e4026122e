-- The reader's view: full-text search over memories, and the trust graph
-- reader-local trust propagates over (SPEC.md §15, ADR 0019 §2.2, §3.2).

-- +goose Up
-- Title terms weigh more than content terms. A stored generated column
-- fills itself for existing rows, so no separate backfill is needed.
ALTER TABLE memories ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', content), 'B')) STORED;
CREATE INDEX memories_search ON memories USING GIN (search_vector);

-- trust_edges holds one edge per evaluator and author: the sum of the
-- effective weights (thousandths) of the evaluator's current eligible
-- positive positions (corroborate, useful, used_successfully) on the
-- author's memories. Self-validations carry no trust and are not stored;
-- negative positions carry none either (SPEC.md §15.1). Triggers on
-- feedback keep it current in the same transaction as the position.
CREATE TABLE trust_edges (
    source_id BIGINT NOT NULL REFERENCES agents (id),
    target_id BIGINT NOT NULL REFERENCES agents (id),
    weight    BIGINT NOT NULL CHECK (weight >= 0),
    PRIMARY KEY (source_id, target_id),
    CHECK (source_id <> target_id)
);
-- The fan-out cap reads a node's heaviest out-edges first.
CREATE INDEX trust_edges_fanout ON trust_edges (source_id, weight DESC, target_id);

INSERT INTO trust_edges (source_id, target_id, weight)
    SELECT f.evaluator_id, m.author_id, SUM(f.weight)
    FROM feedback f JOIN memories m ON m.id = f.memory_id
    WHERE f.eligible AND f.type IN ('corroborate', 'useful', 'used_successfully') AND m.author_id <> f.evaluator_id
    GROUP BY f.evaluator_id, m.author_id
    HAVING SUM(f.weight) > 0;

-- +goose StatementBegin
CREATE FUNCTION passportkit_trust_edge() RETURNS trigger LANGUAGE plpgsql AS $$
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
