-- The revision notification (migration 00007) leaves the transaction that
-- changes a revision token: the store sends it right after that
-- transaction's COMMIT, in the same round trip, and only when the commit
-- succeeded (issuer/store, batch.revisions). Sent from the trigger, inside
-- the transaction, it held PostgreSQL's lock on the notification queue
-- from before the commit record through the commit's WAL flush, so the
-- commits of all writes that change a subject (every validation among
-- them) ran one at a time, each waiting for the previous one's flush.
-- Caches stay correct without a notification: they are keyed by the token
-- read on every request; the notification frees them early.

-- +goose Up
DROP TRIGGER skill_trust_revisions_notify ON skill_trust_revisions;
DROP FUNCTION passportkit_notify_subject_revision();

-- +goose Down
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
