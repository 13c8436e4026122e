-- Survival (ADR 0019 §4; SPEC.md §15.9): under a storage budget the
-- issuer evicts the bodies of memories and artifacts, keeping every row,
-- every content hash and every event.

-- +goose Up
-- evicted_at is when the body was evicted; the content is then '' (a
-- memory) or empty bytes (an artifact), and the hash still names it.
ALTER TABLE memories ADD COLUMN evicted_at TIMESTAMPTZ;
ALTER TABLE artifacts ADD COLUMN evicted_at TIMESTAMPTZ;
-- The sweep reads the bodies still held, oldest first.
CREATE INDEX memories_held ON memories (created_at, id) WHERE evicted_at IS NULL;
-- Uses of a memory: its retrievals, counted by memory.
CREATE INDEX retrievals_memory ON retrievals (memory_id);
-- The memories named by the source previews of an issued passport: their
-- bodies are kept while the passport is unexpired. Rows go with the
-- passport's purge.
CREATE TABLE issued_passport_previews (
    passport_hash TEXT NOT NULL REFERENCES issued_passports (passport_hash),
    memory_id     BIGINT NOT NULL REFERENCES memories (id),
    PRIMARY KEY (passport_hash, memory_id)
);
CREATE INDEX issued_passport_previews_memory ON issued_passport_previews (memory_id);

-- +goose Down
DROP TABLE issued_passport_previews;
DROP INDEX retrievals_memory;
DROP INDEX memories_held;
ALTER TABLE artifacts DROP COLUMN evicted_at;
ALTER TABLE memories DROP COLUMN evicted_at;
