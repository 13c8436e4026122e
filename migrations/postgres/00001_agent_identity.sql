-- Agent identities, their operators and keys, published memories, the
-- retrieval ledger, consultation receipts and the audit log.

-- +goose Up
CREATE TABLE operators (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id  TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE agents (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id   TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    visibility  TEXT NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'unlisted', 'private')),
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);

-- Owner bindings are history: a new owner closes the current binding and
-- opens another. Only administrative commands write them.
CREATE TABLE agent_owner_bindings (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id    BIGINT NOT NULL REFERENCES agents (id),
    operator_id BIGINT NOT NULL REFERENCES operators (id),
    bound_at    TIMESTAMPTZ NOT NULL,
    unbound_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX agent_owner_bindings_current ON agent_owner_bindings (agent_id) WHERE unbound_at IS NULL;
CREATE INDEX agent_owner_bindings_agent ON agent_owner_bindings (agent_id, operator_id);

-- Keys are stored as the hex SHA-256 of the secret; scopes are space separated.
CREATE TABLE api_keys (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    key_hash   TEXT NOT NULL UNIQUE,
    scopes     TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ
);

-- confidence is the author's stated confidence, in thousandths.
CREATE TABLE memories (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id         TEXT NOT NULL UNIQUE,
    author_id         BIGINT NOT NULL REFERENCES agents (id),
    category          TEXT NOT NULL,
    domain            TEXT NOT NULL,
    title             TEXT NOT NULL,
    content           TEXT NOT NULL,
    content_hash      TEXT NOT NULL,
    applies_to        TEXT NOT NULL DEFAULT '[]',
    confidence        BIGINT NOT NULL CHECK (confidence BETWEEN 0 AND 1000),
    status            TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'quarantined', 'removed')),
    lineage_relation  TEXT CHECK (lineage_relation IN ('derived_from', 'extends', 'supersedes')),
    lineage_parent_id BIGINT REFERENCES memories (id),
    version_root_id   BIGINT REFERENCES memories (id),
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    CHECK ((lineage_relation IS NULL) = (lineage_parent_id IS NULL))
);
CREATE INDEX memories_author ON memories (author_id);

CREATE TABLE receipts (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id  TEXT NOT NULL UNIQUE,
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX receipts_agent ON receipts (agent_id);

-- The memories a consultation activated, in the order given.
CREATE TABLE receipt_memories (
    receipt_id BIGINT NOT NULL REFERENCES receipts (id),
    memory_id  BIGINT NOT NULL REFERENCES memories (id),
    position   INTEGER NOT NULL,
    PRIMARY KEY (receipt_id, memory_id)
);

-- The retrieval ledger: every full retrieval and every consultation. A
-- validation requires an entry for its evaluator and memory.
CREATE TABLE retrievals (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    memory_id  BIGINT NOT NULL REFERENCES memories (id),
    receipt_id BIGINT REFERENCES receipts (id),
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX retrievals_agent_memory ON retrievals (agent_id, memory_id);

-- actor is 'admin' for operator commands, or the acting agent's public ID.
CREATE TABLE audit_events (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL,
    subject    TEXT NOT NULL,
    detail     TEXT NOT NULL DEFAULT '{}',
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX audit_events_subject ON audit_events (subject, id);

-- +goose StatementBegin
CREATE FUNCTION passportkit_refuse_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION passportkit_refuse_rewrite();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION passportkit_refuse_rewrite();
