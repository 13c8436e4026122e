-- The keys epoch: one token, replaced in the transaction of every change of
-- which key signs or which keys are published (an activation, a rotation, a
-- retirement, a withdrawal). It is read in the same statement as a
-- subject's revision token, and a passport is cached under both (SPEC
-- §5.9): once a withdrawal commits, no process serves a passport it cached
-- before. Issuing locks the row FOR SHARE while it reads the active key
-- and takes its time; a key change locks it (by its UPDATE) before taking
-- its own, so an issue time always lies inside its key's window (§10.1).
-- The empty token is the epoch before any key change.

-- +goose Up
CREATE TABLE issuer_keys_epoch (
    one   BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    epoch TEXT NOT NULL
);
INSERT INTO issuer_keys_epoch (one, epoch) VALUES (TRUE, '');

-- Replicas drop every cached passport when the epoch changes: the empty
-- payload on the subjects' channel names every subject.
-- +goose StatementBegin
CREATE FUNCTION passportkit_notify_keys_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'issuer_keys_epoch: the epoch row is never deleted' USING ERRCODE = 'check_violation';
    END IF;
    PERFORM pg_notify('passportkit_subject_revision', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER issuer_keys_epoch_notify AFTER UPDATE OR DELETE ON issuer_keys_epoch
    FOR EACH ROW EXECUTE FUNCTION passportkit_notify_keys_epoch();

-- +goose Down
DROP TABLE issuer_keys_epoch;
DROP FUNCTION passportkit_notify_keys_epoch();
