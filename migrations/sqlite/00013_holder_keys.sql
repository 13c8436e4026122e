-- Holder keys (SPEC.md §20). See the PostgreSQL migration for the comments.

-- +goose Up
CREATE TABLE agent_holder_keys (
    thumbprint TEXT PRIMARY KEY CHECK (length(thumbprint) = 43),
    agent_id   INTEGER NOT NULL REFERENCES agents (id),
    jwk        TEXT NOT NULL,
    alg        TEXT NOT NULL CHECK (alg IN ('EdDSA', 'ES256')),
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX agent_holder_keys_agent ON agent_holder_keys (agent_id);
