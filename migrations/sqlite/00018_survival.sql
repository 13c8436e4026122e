-- Survival: see the PostgreSQL migration for the comments.

-- +goose Up
ALTER TABLE memories ADD COLUMN evicted_at TIMESTAMP;
ALTER TABLE artifacts ADD COLUMN evicted_at TIMESTAMP;
CREATE INDEX memories_held ON memories (created_at, id) WHERE evicted_at IS NULL;
CREATE INDEX retrievals_memory ON retrievals (memory_id);
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
