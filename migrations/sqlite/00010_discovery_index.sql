-- Discovery (find_agents, SPEC §17): an index of what each listed agent's
-- passport says per skill, maintained by subject revision, and the key
-- that seals the cursors of every listing. See the PostgreSQL migration
-- for the comments.

-- +goose Up
-- Re-indexing loads every changed subject (SPEC §5.8): the outcome report
-- behind each position change is found by its position, which had no
-- index, so each load read every outcome report.
CREATE INDEX memory_outcomes_position ON memory_outcomes (feedback_id, feedback_revision);

CREATE TABLE discovery_subjects (
    agent_id    INTEGER PRIMARY KEY REFERENCES agents (id),
    public_id   TEXT NOT NULL,
    revision    TEXT NOT NULL,
    listed      BOOLEAN NOT NULL,
    assessed_on TEXT CHECK (assessed_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    score       INTEGER NOT NULL CHECK (score BETWEEN -100000 AND 100000),
    trust_level TEXT NOT NULL,
    listing_key INTEGER NOT NULL CHECK (listing_key = 100000 - score),
    indexed_at  TIMESTAMP NOT NULL,
    CHECK (listed = (assessed_on IS NOT NULL))
);
CREATE INDEX discovery_subjects_listing ON discovery_subjects (listing_key, public_id) WHERE listed;
CREATE INDEX discovery_subjects_assessed ON discovery_subjects (assessed_on, agent_id) WHERE listed;

CREATE TABLE discovery_skills (
    agent_id        INTEGER NOT NULL REFERENCES agents (id),
    skill           TEXT NOT NULL,
    public_id       TEXT NOT NULL,
    revision        TEXT NOT NULL,
    rank_key        INTEGER NOT NULL CHECK (rank_key BETWEEN 0 AND 8000000),
    level           TEXT NOT NULL CHECK (level IN ('VERY_LOW', 'LOW', 'MODERATE', 'STRONG')),
    lower_bound     INTEGER CHECK (lower_bound BETWEEN 0 AND 1000000),
    midpoint        INTEGER CHECK (midpoint BETWEEN 0 AND 1000000),
    upper_bound     INTEGER CHECK (upper_bound BETWEEN 0 AND 1000000),
    state           TEXT NOT NULL,
    assessment      TEXT NOT NULL,
    contested       BOOLEAN NOT NULL,
    stale           BOOLEAN NOT NULL,
    operators       INTEGER NOT NULL CHECK (operators >= 0),
    source_count    INTEGER NOT NULL CHECK (source_count >= 0),
    assessment_hash TEXT NOT NULL,
    assessed_on     TEXT NOT NULL CHECK (assessed_on GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    PRIMARY KEY (agent_id, skill),
    CHECK ((lower_bound IS NULL) = (midpoint IS NULL) AND (midpoint IS NULL) = (upper_bound IS NULL))
);
CREATE INDEX discovery_skills_rank ON discovery_skills (skill, rank_key, public_id);

CREATE TABLE discovery_context_ceilings (
    agent_id    INTEGER NOT NULL REFERENCES agents (id),
    skill       TEXT NOT NULL,
    dimension   TEXT NOT NULL CHECK (dimension IN ('domain', 'environment', 'protocol', 'version', 'workload', 'constraints')),
    alone       BOOLEAN NOT NULL,
    label       TEXT NOT NULL,
    public_id   TEXT NOT NULL,
    ceiling_key INTEGER NOT NULL CHECK (ceiling_key BETWEEN 0 AND 8000000),
    PRIMARY KEY (agent_id, skill, dimension, alone, label)
);
CREATE INDEX discovery_context_ceilings_walk ON discovery_context_ceilings (skill, dimension, alone, label, ceiling_key, public_id);

CREATE TABLE discovery_status (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at TIMESTAMP NOT NULL,
    changed    INTEGER NOT NULL CHECK (changed >= 0),
    aged       INTEGER NOT NULL CHECK (aged >= 0)
);

CREATE TABLE cursor_key (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    key        BLOB NOT NULL CHECK (typeof(key) = 'blob' AND length(key) = 32),
    created_at TIMESTAMP NOT NULL
);
-- +goose StatementBegin
CREATE TRIGGER cursor_key_immutable BEFORE UPDATE ON cursor_key
BEGIN
    SELECT RAISE(ABORT, 'cursor_key is append-only');
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE cursor_key;
DROP TABLE discovery_status;
DROP TABLE discovery_context_ceilings;
DROP TABLE discovery_skills;
DROP TABLE discovery_subjects;
DROP INDEX memory_outcomes_position;
