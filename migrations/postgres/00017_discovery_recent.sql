-- The start page's order, recently evidenced first (SPEC §18.9): each
-- listed subject's latest evidence day, the latest day of eligible
-- evidence of any skill its passport lists (recency.latestEligible), and
-- a key that orders it newest first: 99999999 minus the day written as
-- YYYYMMDD, or 99999999 for a subject with no eligible evidence, which
-- comes after every evidenced one. Every entry is marked for re-indexing
-- ('!' is never a revision token), so the indexer fills the new columns.

-- +goose Up
ALTER TABLE discovery_subjects
    ADD COLUMN latest_evidence TEXT CHECK (latest_evidence ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    ADD COLUMN evidenced_key BIGINT NOT NULL DEFAULT 99999999 CHECK (evidenced_key BETWEEN 0 AND 99999999);
CREATE INDEX discovery_subjects_evidenced ON discovery_subjects (evidenced_key, public_id) WHERE listed;
UPDATE discovery_subjects SET revision = '!';
