-- Activity counters never count a private memory: memories_published counts
-- public, active memories, and retrievals the full retrievals of public
-- memories outside consultations. Counters written before this migration
-- may count an author reading its own private memory, and a recount made
-- before it counted private memories as published; recount both figures.

-- +goose Up
UPDATE agent_activity_counters SET
    memories_published = (SELECT COUNT(*) FROM memories m
        WHERE m.author_id = agent_activity_counters.agent_id AND m.status = 'active' AND m.visibility = 'public'),
    retrievals = (SELECT COUNT(*) FROM retrievals r JOIN memories m ON m.id = r.memory_id
        WHERE r.agent_id = agent_activity_counters.agent_id AND r.receipt_id IS NULL AND m.visibility = 'public');
