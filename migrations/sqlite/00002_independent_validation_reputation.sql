-- Validation positions and their history, idempotency records, the
-- reputation journal and the aggregates derived from it, under policy
-- independent-validation-v2. Figures are integer thousandths.

-- +goose Up
ALTER TABLE memories ADD COLUMN confidence_state TEXT NOT NULL DEFAULT 'new'
    CHECK (confidence_state IN ('new', 'contested', 'robust', 'corroborated', 'observed'));
ALTER TABLE memories ADD COLUMN validation_summary_json TEXT NOT NULL DEFAULT
    '{"state":"new","independentValidators":0,"credibleValidators":0,"counts":{"corroborate":0,"contradict":0,"useful":0,"not_useful":0,"used_successfully":0,"used_unsuccessfully":0},"positiveValidators":0,"negativeValidators":0,"positiveWeight":0,"negativeWeight":0,"crediblePositiveValidators":0}';
ALTER TABLE memories ADD COLUMN validation_base_confidence BIGINT NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN evidence_at TIMESTAMP;
-- The confidence stated so far becomes the baseline weighted changes move.
UPDATE memories SET validation_base_confidence = confidence;

-- Current positions: at most one per evaluator and memory, across types and
-- transports. weight is the effective weight of the current position.
-- receipt_id names the consultation that owns the current position, if any;
-- direct records that the evaluator has given direct feedback here.
CREATE TABLE feedback (
    id             INTEGER PRIMARY KEY,
    public_id      TEXT NOT NULL UNIQUE,
    memory_id      BIGINT NOT NULL REFERENCES memories (id),
    evaluator_id   BIGINT NOT NULL REFERENCES agents (id),
    type           TEXT NOT NULL CHECK (type IN ('corroborate', 'contradict', 'useful', 'not_useful', 'used_successfully', 'used_unsuccessfully')),
    legacy_verdict TEXT CHECK (legacy_verdict IN ('confirm', 'contradict', 'outdated', 'irrelevant')),
    reason         TEXT NOT NULL DEFAULT '',
    revision       INTEGER NOT NULL CHECK (revision >= 1),
    eligible       BOOLEAN NOT NULL,
    weight         BIGINT NOT NULL,
    receipt_id     BIGINT REFERENCES receipts (id),
    direct         BOOLEAN NOT NULL DEFAULT 0,
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL,
    UNIQUE (memory_id, evaluator_id)
);
CREATE INDEX feedback_evaluator ON feedback (evaluator_id) WHERE direct;

-- Every revision of every position, and the original legacy verdicts.
-- change is 'position' for a first position or a change of type, and
-- 'detail' when only the reason, the legacy verdict or the owning
-- consultation changed.
CREATE TABLE feedback_history (
    id             INTEGER PRIMARY KEY,
    feedback_id    BIGINT NOT NULL REFERENCES feedback (id),
    revision       INTEGER NOT NULL,
    change         TEXT NOT NULL CHECK (change IN ('position', 'detail')),
    type           TEXT NOT NULL,
    legacy_verdict TEXT,
    reason         TEXT NOT NULL,
    eligible       BOOLEAN NOT NULL,
    weight         BIGINT NOT NULL,
    receipt_id     BIGINT REFERENCES receipts (id),
    transport      TEXT NOT NULL CHECK (transport IN ('http', 'mcp')),
    created_at     TIMESTAMP NOT NULL,
    UNIQUE (feedback_id, revision)
);

-- One consultation-level validation per receipt.
CREATE TABLE consultation_feedback (
    id             INTEGER PRIMARY KEY,
    receipt_id     BIGINT NOT NULL UNIQUE REFERENCES receipts (id),
    agent_id       BIGINT NOT NULL REFERENCES agents (id),
    type           TEXT NOT NULL,
    legacy_verdict TEXT,
    reason         TEXT NOT NULL DEFAULT '',
    revision       INTEGER NOT NULL CHECK (revision >= 1),
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL
);
CREATE INDEX consultation_feedback_agent ON consultation_feedback (agent_id);

-- Idempotency keys share one namespace per agent. response holds the
-- recorded response body, written in the same transaction as the claim.
CREATE TABLE validation_requests (
    id              INTEGER PRIMARY KEY,
    agent_id        BIGINT NOT NULL REFERENCES agents (id),
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    response        TEXT,
    created_at      TIMESTAMP NOT NULL,
    UNIQUE (agent_id, idempotency_key)
);

-- The journal. weight is the effective weight, points the type's base
-- points, delta the signed effect on the author's raw score.
CREATE TABLE reputation_events (
    id           INTEGER PRIMARY KEY,
    author_id    BIGINT NOT NULL REFERENCES agents (id),
    evaluator_id BIGINT REFERENCES agents (id),
    memory_id    BIGINT REFERENCES memories (id),
    feedback_id  BIGINT REFERENCES feedback (id),
    domain       TEXT NOT NULL,
    phase        TEXT NOT NULL CHECK (phase IN ('apply', 'compensation', 'baseline')),
    type         TEXT,
    points       BIGINT NOT NULL,
    base_weight  BIGINT NOT NULL,
    pair_factor  BIGINT NOT NULL,
    weight       BIGINT NOT NULL,
    delta        BIGINT NOT NULL,
    policy       TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL
);
CREATE INDEX reputation_events_author ON reputation_events (author_id, id);
CREATE INDEX reputation_events_author_domain ON reputation_events (author_id, domain, id);

-- The current effect of each position, with the frozen base weight and the
-- factor saved in each budget the position has entered.
CREATE TABLE reputation_positions (
    feedback_id     BIGINT PRIMARY KEY REFERENCES feedback (id),
    memory_id       BIGINT NOT NULL REFERENCES memories (id),
    evaluator_id    BIGINT NOT NULL REFERENCES agents (id),
    author_id       BIGINT NOT NULL REFERENCES agents (id),
    domain          TEXT NOT NULL,
    type            TEXT NOT NULL,
    base_weight     BIGINT NOT NULL,
    positive_factor BIGINT,
    negative_factor BIGINT,
    weight          BIGINT NOT NULL,
    contribution    BIGINT NOT NULL,
    policy          TEXT NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    UNIQUE (memory_id, evaluator_id)
);

-- The positive budget of an unordered pair (agent_low < agent_high).
CREATE TABLE reputation_pair_counters (
    agent_low  BIGINT NOT NULL REFERENCES agents (id),
    agent_high BIGINT NOT NULL REFERENCES agents (id),
    positions  INTEGER NOT NULL,
    PRIMARY KEY (agent_low, agent_high),
    CHECK (agent_low < agent_high)
);

-- The negative budget of one evaluator towards one author.
CREATE TABLE reputation_negative_pair_counters (
    author_id    BIGINT NOT NULL REFERENCES agents (id),
    evaluator_id BIGINT NOT NULL REFERENCES agents (id),
    positions    INTEGER NOT NULL,
    PRIMARY KEY (author_id, evaluator_id)
);

CREATE TABLE agent_domain_reputation (
    id              INTEGER PRIMARY KEY,
    agent_id        BIGINT NOT NULL REFERENCES agents (id),
    domain          TEXT NOT NULL,
    raw             BIGINT NOT NULL,
    score           BIGINT NOT NULL CHECK (score BETWEEN -100000 AND 100000),
    confidence      BIGINT NOT NULL,
    sample_size     INTEGER NOT NULL,
    positive_events INTEGER NOT NULL,
    negative_events INTEGER NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    UNIQUE (agent_id, domain)
);

-- One row per agent, created with the agent; submissions lock it to
-- serialise changes to one author's reputation.
CREATE TABLE agent_reputation_aggregates (
    agent_id        BIGINT PRIMARY KEY REFERENCES agents (id),
    raw             BIGINT NOT NULL,
    score           BIGINT NOT NULL CHECK (score BETWEEN -100000 AND 100000),
    confidence      BIGINT NOT NULL,
    sample_size     INTEGER NOT NULL,
    positive_events INTEGER NOT NULL,
    negative_events INTEGER NOT NULL,
    trust_level     TEXT NOT NULL CHECK (trust_level IN ('new', 'observed', 'trusted', 'high_trust')),
    updated_at      TIMESTAMP NOT NULL
);
INSERT INTO agent_reputation_aggregates
    SELECT id, 0, 0, 0, 0, 0, 0, 'new', created_at FROM agents;

CREATE TABLE agent_domain_evaluator_counts (
    agent_id     BIGINT NOT NULL REFERENCES agents (id),
    domain       TEXT NOT NULL,
    evaluator_id BIGINT NOT NULL REFERENCES agents (id),
    positions    INTEGER NOT NULL CHECK (positions > 0),
    PRIMARY KEY (agent_id, domain, evaluator_id)
);

CREATE TABLE agent_global_evaluator_counts (
    agent_id     BIGINT NOT NULL REFERENCES agents (id),
    evaluator_id BIGINT NOT NULL REFERENCES agents (id),
    positions    INTEGER NOT NULL CHECK (positions > 0),
    PRIMARY KEY (agent_id, evaluator_id)
);

-- +goose StatementBegin
CREATE TRIGGER feedback_history_no_update BEFORE UPDATE ON feedback_history
BEGIN
    SELECT RAISE(ABORT, 'feedback_history is append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER feedback_history_no_delete BEFORE DELETE ON feedback_history
BEGIN
    SELECT RAISE(ABORT, 'feedback_history is append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER reputation_events_no_update BEFORE UPDATE ON reputation_events
BEGIN
    SELECT RAISE(ABORT, 'reputation_events is append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER reputation_events_no_delete BEFORE DELETE ON reputation_events
BEGIN
    SELECT RAISE(ABORT, 'reputation_events is append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER feedback_not_author_owned_insert BEFORE INSERT ON feedback
WHEN NEW.eligible AND NEW.evaluator_id = (SELECT author_id FROM memories WHERE id = NEW.memory_id)
BEGIN
    SELECT RAISE(ABORT, 'feedback: an author cannot hold an eligible position on its own memory');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER feedback_not_author_owned_update BEFORE UPDATE ON feedback
WHEN NEW.eligible AND NEW.evaluator_id = (SELECT author_id FROM memories WHERE id = NEW.memory_id)
BEGIN
    SELECT RAISE(ABORT, 'feedback: an author cannot hold an eligible position on its own memory');
END;
-- +goose StatementEnd
