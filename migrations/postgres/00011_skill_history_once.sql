-- Skill history once per subject revision, hour and skill across every
-- issuer process (SPEC §5.9): hour is the UTC hour (Unix seconds / 3600)
-- of the passport an assessment belongs to. Rows written before this
-- migration have none, and NULLs never collide.

-- +goose Up
ALTER TABLE skill_trust_history ADD COLUMN hour BIGINT;
CREATE UNIQUE INDEX skill_trust_history_once ON skill_trust_history (subject_id, skill, source_revision, hour);

-- +goose Down
DROP INDEX skill_trust_history_once;
ALTER TABLE skill_trust_history DROP COLUMN hour;
