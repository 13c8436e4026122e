-- Indexes for the issue path (LoadSubject): a subject's memories are read
-- oldest first by author, so (author_id, created_at, id) returns them in
-- key order without a sort and replaces the index on author_id alone; partial
-- and uncertain outcome reports are read by memory. Without the last, a
-- planner short of statistics (a table just filled) chooses a nested loop
-- over every report per memory.

-- +goose Up
CREATE INDEX memories_author_created ON memories (author_id, created_at, id);
DROP INDEX memories_author;
CREATE INDEX memory_outcomes_unlinked ON memory_outcomes (memory_id) WHERE feedback_id IS NULL;

-- +goose Down
DROP INDEX memory_outcomes_unlinked;
CREATE INDEX memories_author ON memories (author_id);
DROP INDEX memories_author_created;
