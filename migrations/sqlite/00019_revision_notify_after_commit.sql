-- PostgreSQL's revision notification moves from a trigger to the store
-- (see the PostgreSQL migration). SQLite has no notifications: nothing
-- changes.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
