-- 005_waiting.sql — issue 29: what a queued job waits for, as the scheduler last found it
-- (a worker, devices, host memory, the disk, its owner's quota), kept with the job so that
-- GET /v1/jobs/{id} can say it; NULL: nothing but its place in the queue. The scheduler
-- writes it (server/waiting.c) and a claim clears it.

ALTER TABLE jobs ADD COLUMN waiting TEXT;
