-- The validation write path: the author-feedback guard runs only when a
-- row could change whose memory or evaluator it is, or become eligible.
-- A submission's updates of type, reason, weight and revision no longer
-- repeat the eligibility lookup the service has already made; an insert,
-- or any update of memory_id, evaluator_id or eligible, is still refused
-- when the evaluator is the memory's author.

-- +goose Up
DROP TRIGGER feedback_not_author_owned ON feedback;
CREATE TRIGGER feedback_not_author_owned BEFORE INSERT OR UPDATE OF memory_id, evaluator_id, eligible ON feedback
    FOR EACH ROW EXECUTE FUNCTION passportkit_refuse_author_feedback();

-- A position's reputation figures move into its feedback row, so that a
-- change of position writes one row instead of two. weight (the effective
-- weight) and type were already there.
ALTER TABLE feedback
    ADD COLUMN base_weight BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN positive_factor BIGINT,
    ADD COLUMN negative_factor BIGINT,
    ADD COLUMN contribution BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN policy TEXT NOT NULL DEFAULT 'independent-validation-v2';
UPDATE feedback f SET base_weight = rp.base_weight, positive_factor = rp.positive_factor,
    negative_factor = rp.negative_factor, contribution = rp.contribution, policy = rp.policy
    FROM reputation_positions rp WHERE rp.feedback_id = f.id;
ALTER TABLE feedback ALTER COLUMN base_weight DROP DEFAULT, ALTER COLUMN contribution DROP DEFAULT,
    ALTER COLUMN policy DROP DEFAULT;
DROP TABLE reputation_positions;
