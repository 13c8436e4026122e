-- The start page's order, recently evidenced first (SPEC §18.9). See the
-- PostgreSQL migration for the comments.

-- +goose Up
ALTER TABLE discovery_subjects ADD COLUMN latest_evidence TEXT
    CHECK (latest_evidence GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]');
ALTER TABLE discovery_subjects ADD COLUMN evidenced_key INTEGER NOT NULL DEFAULT 99999999
    CHECK (evidenced_key BETWEEN 0 AND 99999999);
CREATE INDEX discovery_subjects_evidenced ON discovery_subjects (evidenced_key, public_id) WHERE listed;
UPDATE discovery_subjects SET revision = '!';
