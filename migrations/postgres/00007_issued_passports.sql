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
    passport_hash TEXT PRIMARY KEY CHECK (passport_hash ~ '^[0-9a-f]{64}$'),
    agent_id      BIGINT NOT NULL REFERENCES agents (id),
    issued_at     TIMESTAMPTZ NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL,
    purge_after   TIMESTAMPTZ NOT NULL,
    kid           TEXT NOT NULL,
    evidence_gz   BYTEA NOT NULL,
    CHECK (issued_at < expires_at AND expires_at <= purge_after)
);
CREATE INDEX issued_passports_agent ON issued_passports (agent_id, issued_at);
CREATE INDEX issued_passports_purge ON issued_passports (purge_after);

-- +goose StatementBegin
CREATE FUNCTION passportkit_issued_passport_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'issued_passports: an issued passport never changes' USING ERRCODE = 'check_violation';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER issued_passports_immutable BEFORE UPDATE ON issued_passports
    FOR EACH ROW EXECUTE FUNCTION passportkit_issued_passport_immutable();

-- Replicas invalidate each other's caches: every change of a subject's
-- revision token notifies the channel passportkit_subject_revision with
-- the subject's public id. A notification is delivered only when its
-- transaction commits, so a rolled-back write invalidates nothing (and its
-- token was never readable). Caches stay correct without it: they are
-- keyed by the token read on every request; the notification frees them
-- early.
-- +goose StatementBegin
CREATE FUNCTION passportkit_notify_subject_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('passportkit_subject_revision', (SELECT public_id FROM agents WHERE id = NEW.agent_id));
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER skill_trust_revisions_notify AFTER INSERT OR UPDATE ON skill_trust_revisions
    FOR EACH ROW EXECUTE FUNCTION passportkit_notify_subject_revision();
