-- The keys epoch: one token, replaced in the transaction of every change of
-- which key signs or which keys are published (an activation, a rotation, a
-- retirement, a withdrawal). It is read in the same statement as a
-- subject's revision token, and a passport is cached under both (SPEC
-- §5.9): once a withdrawal commits, no process serves a passport it cached
-- before. Issuing reads the active key and takes its time under the
-- database write lock, which every key change holds while it takes its
-- own, so an issue time always lies inside its key's window (§10.1). The
-- empty token is the epoch before any key change.

-- +goose Up
CREATE TABLE issuer_keys_epoch (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    epoch TEXT NOT NULL
);
INSERT INTO issuer_keys_epoch (one, epoch) VALUES (1, '');

-- +goose StatementBegin
CREATE TRIGGER issuer_keys_epoch_kept BEFORE DELETE ON issuer_keys_epoch
BEGIN
    SELECT RAISE(ABORT, 'issuer_keys_epoch: the epoch row is never deleted');
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE issuer_keys_epoch;
