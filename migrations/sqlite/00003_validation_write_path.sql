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
