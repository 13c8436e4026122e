-- Holder keys: the public keys an agent proved it holds, which its passport
-- names by RFC 7638 thumbprint (SPEC.md §20). A key belongs to one agent at
-- a time: the thumbprint is the primary key across all agents. jwk is the
-- key's canonical public JWK; an agent holds at most four, which the
-- service enforces and checks in the transaction that writes them.

-- +goose Up
CREATE TABLE agent_holder_keys (
    thumbprint TEXT PRIMARY KEY CHECK (length(thumbprint) = 43),
    agent_id   BIGINT NOT NULL REFERENCES agents (id),
    jwk        TEXT NOT NULL,
    alg        TEXT NOT NULL CHECK (alg IN ('EdDSA', 'ES256')),
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX agent_holder_keys_agent ON agent_holder_keys (agent_id);
