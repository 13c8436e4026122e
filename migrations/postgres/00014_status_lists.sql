-- Status lists (SPEC.md §19.4): the lists the issuer publishes at
-- {issuer}/status/{name}, one 2-bit entry per issued passport (0 valid,
-- 1 revoked, 2 suspended).
--
-- A list has a fixed capacity (2^20 entries). Entries are reserved when a
-- passport is assembled, at an index drawn at random among the list's free
-- ones, and never freed: an index names one passport for the list's life.
-- `used` counts the reserved entries (a trigger keeps it); once it reaches
-- half the capacity, the next reservation opens a new list, so that a draw
-- finds a free index at least half the time. `version` changes in every
-- transaction that changes an entry's status, so that whoever serves the
-- list knows when to encode it again.
--
-- An issued passport names its entry (status_list_id, status_idx); its
-- status is the entry's. The entry outlives the passport's purge.

-- +goose Up
CREATE TABLE status_lists (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE CHECK (name ~ '^sl_[a-z2-7]{26}$'),
    bits       INTEGER NOT NULL CHECK (bits = 2),
    capacity   INTEGER NOT NULL CHECK (capacity > 0),
    used       INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= capacity),
    version    BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE status_entries (
    list_id    BIGINT NOT NULL REFERENCES status_lists (id),
    idx        INTEGER NOT NULL CHECK (idx >= 0),
    status     SMALLINT NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
    reason     TEXT NOT NULL DEFAULT '',
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (list_id, idx)
);
-- Encoding a list reads only the entries that are not valid.
CREATE INDEX status_entries_set ON status_entries (list_id, idx) WHERE status <> 0;

-- +goose StatementBegin
CREATE FUNCTION passportkit_count_status_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE status_lists SET used = used + 1 WHERE id = NEW.list_id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER status_entries_count AFTER INSERT ON status_entries
    FOR EACH ROW EXECUTE FUNCTION passportkit_count_status_entry();

ALTER TABLE issued_passports ADD COLUMN status_list_id BIGINT REFERENCES status_lists (id);
ALTER TABLE issued_passports ADD COLUMN status_idx INTEGER;
ALTER TABLE issued_passports ADD CONSTRAINT issued_passports_status
    CHECK ((status_list_id IS NULL) = (status_idx IS NULL));
ALTER TABLE issued_passports ADD CONSTRAINT issued_passports_status_entry
    FOREIGN KEY (status_list_id, status_idx) REFERENCES status_entries (list_id, idx);
CREATE UNIQUE INDEX issued_passports_status_entry ON issued_passports (status_list_id, status_idx);
-- Withdrawing a key revokes what it signed.
CREATE INDEX issued_passports_kid ON issued_passports (kid);
