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
    created_at    TIMESTAMPTZ NOT NULL,
    not_before    TIMESTAMPTZ,
    not_after     TIMESTAMPTZ,
    publish_until TIMESTAMPTZ,
    CHECK (status <> 'ready' OR (not_before IS NULL AND not_after IS NULL AND publish_until IS NULL)),
    CHECK (status <> 'active' OR (not_before IS NOT NULL AND not_after IS NULL AND publish_until IS NULL)),
    CHECK (status <> 'retired' OR (not_after IS NOT NULL AND publish_until IS NOT NULL AND publish_until >= not_after)),
    CHECK (not_before IS NULL OR not_after IS NULL OR not_before <= not_after)
);
CREATE UNIQUE INDEX issuer_keys_one_active ON issuer_keys (status) WHERE status = 'active';

-- +goose StatementBegin
CREATE FUNCTION passportkit_issuer_key_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'issuer_keys: keys are never deleted; retire them' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.kid <> OLD.kid OR NEW.alg <> OLD.alg OR NEW.public_jwk <> OLD.public_jwk OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'issuer_keys: a key''s identity never changes' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'retired' AND (NEW.status <> 'retired' OR NEW.not_after <> OLD.not_after
            OR NEW.not_before IS DISTINCT FROM OLD.not_before OR NEW.publish_until > OLD.publish_until) THEN
        RAISE EXCEPTION 'issuer_keys: a retired key never signs again; its publication may only end sooner'
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status = 'active' AND NEW.status = 'ready' THEN
        RAISE EXCEPTION 'issuer_keys: an active key can only be retired' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER issuer_keys_transition BEFORE UPDATE OR DELETE ON issuer_keys
    FOR EACH ROW EXECUTE FUNCTION passportkit_issuer_key_transition();
