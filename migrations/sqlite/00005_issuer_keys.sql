-- The issuer's signing keys: public halves, windows and status. Private
-- halves never enter the database; they live in the key directory.
--
-- A key is ready (generated, not yet signing, not published), active (the
-- one key that signs, published, its window open since not_before) or
-- retired (no longer signing; its window closed at not_after; published
-- until publish_until so that what it signed keeps verifying). A retired
-- key never signs again. At most one key is active: the partial unique
-- index enforces it whatever the code does.

-- +goose Up
CREATE TABLE issuer_keys (
    kid           TEXT PRIMARY KEY,
    alg           TEXT NOT NULL CHECK (alg IN ('EdDSA', 'ES256')),
    public_jwk    TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('ready', 'active', 'retired')),
    created_at    TIMESTAMP NOT NULL,
    not_before    TIMESTAMP,
    not_after     TIMESTAMP,
    publish_until TIMESTAMP,
    CHECK (status <> 'ready' OR (not_before IS NULL AND not_after IS NULL AND publish_until IS NULL)),
    CHECK (status <> 'active' OR (not_before IS NOT NULL AND not_after IS NULL AND publish_until IS NULL)),
    CHECK (status <> 'retired' OR (not_after IS NOT NULL AND publish_until IS NOT NULL))
);
CREATE UNIQUE INDEX issuer_keys_one_active ON issuer_keys (status) WHERE status = 'active';

-- +goose StatementBegin
CREATE TRIGGER issuer_keys_no_delete BEFORE DELETE ON issuer_keys
BEGIN
    SELECT RAISE(ABORT, 'issuer_keys: keys are never deleted; retire them');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER issuer_keys_identity BEFORE UPDATE ON issuer_keys
WHEN NEW.kid <> OLD.kid OR NEW.alg <> OLD.alg OR NEW.public_jwk <> OLD.public_jwk OR NEW.created_at <> OLD.created_at
BEGIN
    SELECT RAISE(ABORT, 'issuer_keys: a key''s identity never changes');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER issuer_keys_retired_final BEFORE UPDATE ON issuer_keys
WHEN OLD.status = 'retired' AND (NEW.status <> 'retired' OR NEW.not_after IS NOT OLD.not_after OR NEW.not_before IS NOT OLD.not_before)
BEGIN
    SELECT RAISE(ABORT, 'issuer_keys: a retired key never signs again');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER issuer_keys_active_retires BEFORE UPDATE ON issuer_keys
WHEN OLD.status = 'active' AND NEW.status = 'ready'
BEGIN
    SELECT RAISE(ABORT, 'issuer_keys: an active key can only be retired');
END;
-- +goose StatementEnd
