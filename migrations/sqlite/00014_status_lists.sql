-- Status lists (SPEC.md §19.4). See the PostgreSQL migration for the
-- comments.

-- +goose Up
CREATE TABLE status_lists (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE CHECK (length(name) = 29 AND name GLOB 'sl_*' AND substr(name, 4) NOT GLOB '*[^a-z2-7]*'),
    bits       INTEGER NOT NULL CHECK (bits = 2),
    capacity   INTEGER NOT NULL CHECK (capacity > 0),
    used       INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= capacity),
    version    INTEGER NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE status_entries (
    list_id    INTEGER NOT NULL REFERENCES status_lists (id),
    idx        INTEGER NOT NULL CHECK (idx >= 0),
    status     INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
    reason     TEXT NOT NULL DEFAULT '',
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (list_id, idx)
) WITHOUT ROWID;
CREATE INDEX status_entries_set ON status_entries (list_id, idx) WHERE status <> 0;

-- +goose StatementBegin
CREATE TRIGGER status_entries_count AFTER INSERT ON status_entries
BEGIN
    UPDATE status_lists SET used = used + 1 WHERE id = NEW.list_id;
END;
-- +goose StatementEnd

-- SQLite adds no table constraint to an existing table: the pair is
-- checked by the unique index and by the store, which writes both or
-- neither.
ALTER TABLE issued_passports ADD COLUMN status_list_id INTEGER REFERENCES status_lists (id);
ALTER TABLE issued_passports ADD COLUMN status_idx INTEGER;
CREATE UNIQUE INDEX issued_passports_status_entry ON issued_passports (status_list_id, status_idx);
CREATE INDEX issued_passports_kid ON issued_passports (kid);
