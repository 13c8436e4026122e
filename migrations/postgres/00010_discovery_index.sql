-- Discovery (find_agents, SPEC §17): an index of what each listed agent's
-- passport says per skill, maintained by subject revision, and the key
-- that seals the cursors of every listing.
--
-- discovery_subjects holds one row per agent the indexer has seen: the
-- subject revision its rows were computed from (a missing revision row is
-- the revision ''), whether it is listed (public and active), and for a
-- listed one the figures of the legacy listing (global reputation). A
-- subject whose revision token differs from revision, or whose figures were
-- assessed before today, awaits re-indexing.
--
-- discovery_skills holds one row per listed agent and normalised skill its
-- passport lists, with the figures the ranking and the result summary need.
-- rank_key orders the skill's agents best first in one ascending column:
-- (3 - level rank) * 2000000 + (1000000 - lower bound in millionths), or
-- + 1000001 when the estimate is N/A, so that a keyset page is one index
-- range (skill, rank_key, public_id) of limit+1 rows. Estimates are in
-- millionths, as the skill passport rounds them.
--
-- discovery_context_ceilings holds, per listed agent, skill and context
-- dimension, the ceilings that bound what a task context stating a label on
-- that dimension can make of the skill (SPEC §17.4), as rank keys: one row
-- per label its evidence carries there, and one (label '') for any other
-- label; those with alone bound the contexts that state no other
-- dimension. A query in context walks them in (ceiling_key, public_id)
-- order.

-- +goose Up
-- Re-indexing loads every changed subject (SPEC §5.8): the outcome report
-- behind each position change is found by its position, which had no
-- index, so each load read every outcome report.
CREATE INDEX memory_outcomes_position ON memory_outcomes (feedback_id, feedback_revision);

CREATE TABLE discovery_subjects (
    agent_id    BIGINT PRIMARY KEY REFERENCES agents (id),
    public_id   TEXT NOT NULL,
    revision    TEXT NOT NULL,
    listed      BOOLEAN NOT NULL,
    assessed_on TEXT CHECK (assessed_on ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    score       BIGINT NOT NULL CHECK (score BETWEEN -100000 AND 100000),
    trust_level TEXT NOT NULL,
    listing_key BIGINT NOT NULL CHECK (listing_key = 100000 - score),
    indexed_at  TIMESTAMPTZ NOT NULL,
    CHECK (listed = (assessed_on IS NOT NULL))
);
CREATE INDEX discovery_subjects_listing ON discovery_subjects (listing_key, public_id) WHERE listed;
CREATE INDEX discovery_subjects_assessed ON discovery_subjects (assessed_on, agent_id) WHERE listed;

CREATE TABLE discovery_skills (
    agent_id        BIGINT NOT NULL REFERENCES agents (id),
    skill           TEXT NOT NULL,
    public_id       TEXT NOT NULL,
    revision        TEXT NOT NULL,
    rank_key        BIGINT NOT NULL CHECK (rank_key BETWEEN 0 AND 8000000),
    level           TEXT NOT NULL CHECK (level IN ('VERY_LOW', 'LOW', 'MODERATE', 'STRONG')),
    lower_bound     BIGINT CHECK (lower_bound BETWEEN 0 AND 1000000),
    midpoint        BIGINT CHECK (midpoint BETWEEN 0 AND 1000000),
    upper_bound     BIGINT CHECK (upper_bound BETWEEN 0 AND 1000000),
    state           TEXT NOT NULL,
    assessment      TEXT NOT NULL,
    contested       BOOLEAN NOT NULL,
    stale           BOOLEAN NOT NULL,
    operators       INTEGER NOT NULL CHECK (operators >= 0),
    source_count    INTEGER NOT NULL CHECK (source_count >= 0),
    assessment_hash TEXT NOT NULL,
    assessed_on     TEXT NOT NULL CHECK (assessed_on ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    PRIMARY KEY (agent_id, skill),
    CHECK ((lower_bound IS NULL) = (midpoint IS NULL) AND (midpoint IS NULL) = (upper_bound IS NULL))
);
CREATE INDEX discovery_skills_rank ON discovery_skills (skill, rank_key, public_id);

CREATE TABLE discovery_context_ceilings (
    agent_id    BIGINT NOT NULL REFERENCES agents (id),
    skill       TEXT NOT NULL,
    dimension   TEXT NOT NULL CHECK (dimension IN ('domain', 'environment', 'protocol', 'version', 'workload', 'constraints')),
    alone       BOOLEAN NOT NULL,
    label       TEXT NOT NULL,
    public_id   TEXT NOT NULL,
    ceiling_key BIGINT NOT NULL CHECK (ceiling_key BETWEEN 0 AND 8000000),
    PRIMARY KEY (agent_id, skill, dimension, alone, label)
);
CREATE INDEX discovery_context_ceilings_walk ON discovery_context_ceilings (skill, dimension, alone, label, ceiling_key, public_id);

-- What the indexer found at its last pass: how many subjects awaited
-- re-indexing, and when. One row.
CREATE TABLE discovery_status (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at TIMESTAMPTZ NOT NULL,
    changed    BIGINT NOT NULL CHECK (changed >= 0),
    aged       BIGINT NOT NULL CHECK (aged >= 0)
);

-- The key that seals cursors: 32 random bytes, created once by the first
-- process that needs it and read by every replica, so that a cursor
-- survives restarts and is accepted by any replica. It never changes;
-- deleting the row makes the next start create another, and every cursor
-- issued before invalid.
CREATE TABLE cursor_key (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    key        BYTEA NOT NULL CHECK (octet_length(key) = 32),
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TRIGGER cursor_key_immutable BEFORE UPDATE ON cursor_key
    FOR EACH ROW EXECUTE FUNCTION passportkit_refuse_rewrite();

-- +goose Down
DROP TABLE cursor_key;
DROP TABLE discovery_status;
DROP TABLE discovery_context_ceilings;
DROP TABLE discovery_skills;
DROP TABLE discovery_subjects;
DROP INDEX memory_outcomes_position;
