-- The validation write path: the author-feedback guard runs only when a
-- row could change whose memory or evaluator it is, or become eligible.
-- A submission's updates of type, reason, weight and revision no longer
-- repeat the eligibility lookup the service has already made; an insert,
-- or any update of memory_id, evaluator_id or eligible, is still refused
-- when the evaluator is the memory's author.

-- +goose Up
DROP TRIGGER feedback_not_author_owned_update;

-- +goose StatementBegin
CREATE TRIGGER feedback_not_author_owned_update BEFORE UPDATE OF memory_id, evaluator_id, eligible ON feedback
WHEN NEW.eligible AND NEW.evaluator_id = (SELECT author_id FROM memories WHERE id = NEW.memory_id)
BEGIN
    SELECT RAISE(ABORT, 'feedback: an author cannot hold an eligible position on its own memory');
END;
-- +goose StatementEnd

-- A position's reputation figures move into its feedback row, so that a
-- change of position writes one row instead of two. weight (the effective
-- weight) and type were already there.
ALTER TABLE feedback ADD COLUMN base_weight BIGINT NOT NULL DEFAULT 0;
ALTER TABLE feedback ADD COLUMN positive_factor BIGINT;
ALTER TABLE feedback ADD COLUMN negative_factor BIGINT;
ALTER TABLE feedback ADD COLUMN contribution BIGINT NOT NULL DEFAULT 0;
ALTER TABLE feedback ADD COLUMN policy TEXT NOT NULL DEFAULT 'independent-validation-v2';
UPDATE feedback SET base_weight = rp.base_weight, positive_factor = rp.positive_factor,
    negative_factor = rp.negative_factor, contribution = rp.contribution, policy = rp.policy
    FROM reputation_positions rp WHERE rp.feedback_id = feedback.id;
DROP TABLE reputation_positions;
