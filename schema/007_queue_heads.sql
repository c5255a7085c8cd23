-- 007_queue_heads.sql — issue 29: the index the scheduler finds the queue's candidates
-- with (the oldest queued job of each priority and owner, server/sharing.c): a few index
-- seeks per priority and owner, instead of a pass over every queued job, which made each
-- scheduling pass cost as much as the queue is long.

CREATE INDEX jobs_queue_heads ON jobs (state, priority, owner, id);
