-- Issued passports: what the issuer signed, kept so that anyone holding a
-- bundle can fetch the complete evidence file behind it
-- (GET /api/public/agents/{publicId}/passport/evidence?passportHash=H).
--
-- A row is immutable. It is kept until purge_after (the passport's expiry
-- plus a margin), then deleted by the next issuance; a purged passport's
-- evidence is answered 404, like an unknown one. evidence_gz is the
-- canonical evidence file (SPEC §5.1), gzip-compressed.

-- +goose Up
CREATE TABLE issued_passports (
    passport_hash TEXT PRIMARY KEY CHECK (length(passport_hash) = 64 AND passport_hash NOT GLOB '*[^0-9a-f]*'),
    agent_id      INTEGER NOT NULL REFERENCES agents (id),
    issued_at     TIMESTAMP NOT NULL,
    expires_at    TIMESTAMP NOT NULL,
    purge_after   TIMESTAMP NOT NULL,
    kid           TEXT NOT NULL,
    evidence_gz   BLOB NOT NULL,
    CHECK (issued_at < expires_at AND expires_at <= purge_after)
);
CREATE INDEX issued_passports_agent ON issued_passports (agent_id, issued_at);
CREATE INDEX issued_passports_purge ON issued_passports (purge_after);

-- +goose StatementBegin
CREATE TRIGGER issued_passports_immutable BEFORE UPDATE ON issued_passports
BEGIN
    SELECT RAISE(ABORT, 'issued_passports: an issued passport never changes');
END;
-- +goose StatementEnd
