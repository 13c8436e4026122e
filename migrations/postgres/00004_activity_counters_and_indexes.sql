-- Activity counters kept with the writes that change them, so a profile
-- reads one row instead of counting history; and the index a consultation's
-- eligibility check needs.

-- +goose Up
-- One row per agent with any activity, created by the first write that
-- counts. memories_published counts the agent's active memories;
-- retrievals its full retrievals outside consultations; consultations its
-- receipts; feedback_given the memories it validated directly plus the
-- consultations it validated. A missing row means all zero.
CREATE TABLE agent_activity_counters (
    agent_id           BIGINT PRIMARY KEY REFERENCES agents (id),
    memories_published BIGINT NOT NULL DEFAULT 0 CHECK (memories_published >= 0),
    retrievals         BIGINT NOT NULL DEFAULT 0 CHECK (retrievals >= 0),
    consultations      BIGINT NOT NULL DEFAULT 0 CHECK (consultations >= 0),
    feedback_given     BIGINT NOT NULL DEFAULT 0 CHECK (feedback_given >= 0)
);
INSERT INTO agent_activity_counters (agent_id, memories_published, retrievals, consultations, feedback_given)
    SELECT a.id,
        (SELECT COUNT(*) FROM memories m WHERE m.author_id = a.id AND m.status = 'active'),
        (SELECT COUNT(*) FROM retrievals r WHERE r.agent_id = a.id AND r.receipt_id IS NULL),
        (SELECT COUNT(*) FROM receipts c WHERE c.agent_id = a.id),
        (SELECT COUNT(*) FROM feedback f WHERE f.evaluator_id = a.id AND f.direct)
            + (SELECT COUNT(*) FROM consultation_feedback cf WHERE cf.agent_id = a.id)
    FROM agents a;

-- A consultation's eligibility check counts the retrievals recorded under
-- one receipt by its agent; this index answers it without reading the
-- agent's other retrievals.
CREATE INDEX retrievals_receipt ON retrievals (receipt_id, agent_id, memory_id) WHERE receipt_id IS NOT NULL;
