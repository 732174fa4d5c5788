-- The campaign stats (docs/campaign-stats.md) read in index order: what the read used to join or compute for every row
-- is written with the row. Each value is a function of its row and of what never changes once the row exists (a user's
-- registration, a chain's start, runs and time zone), so a count over the rows stays exact. The stats indexes of 0013
-- (and the chain_id index of task_completions, which the new ones lead with) go first, so the backfills do not keep them.
DROP INDEX "task_completions_chain_user_idx";
--> statement-breakpoint
DROP INDEX "task_completions_chain_idx";
--> statement-breakpoint
DROP INDEX "chain_progress_chain_idx";
--> statement-breakpoint
DROP INDEX "reward_claims_chain_idx";
--> statement-breakpoint
-- A completion's time from the user's joining (the later of their registration and the chain's start, or the run's
-- start in a repeating chain), in µs: a task's median is then the middle entry of an index range.
ALTER TABLE "task_completions" ADD COLUMN "since_joined_us" bigint;
--> statement-breakpoint
UPDATE "task_completions" c
SET "since_joined_us" = (extract(epoch from c."completed_at") * 1000000)::bigint - greatest(
  (extract(epoch from u."created_at") * 1000000)::bigint,
  CASE WHEN c."period_start_us" <> 0 THEN c."period_start_us" ELSE (extract(epoch from q."start_date") * 1000000)::bigint END)
FROM "users" u, "quest_chains" q
WHERE u."id" = c."user_id" AND q."id" = c."chain_id";
--> statement-breakpoint
ALTER TABLE "task_completions" ALTER COLUMN "since_joined_us" SET NOT NULL;
--> statement-breakpoint
CREATE INDEX "task_completions_chain_task_idx" ON "task_completions" USING btree ("chain_id","task_id");
--> statement-breakpoint
CREATE INDEX "task_completions_chain_task_wait_idx" ON "task_completions" USING btree ("chain_id","task_id","since_joined_us");
--> statement-breakpoint
-- A walk's first completion: daily starts are counted by ranges of an index, not by a minimum per user.
ALTER TABLE "chain_progress" ADD COLUMN "first_completed_at" timestamp(6) with time zone;
--> statement-breakpoint
UPDATE "chain_progress" p SET "first_completed_at" = f."first_at"
FROM (SELECT "user_id", "chain_id", "period_start_us", min("completed_at") AS "first_at" FROM "task_completions" GROUP BY 1, 2, 3) f
WHERE f."user_id" = p."user_id" AND f."chain_id" = p."chain_id" AND f."period_start_us" = p."period_start_us";
--> statement-breakpoint
CREATE INDEX "chain_progress_chain_started_idx" ON "chain_progress" USING btree ("chain_id","first_completed_at","generation");
--> statement-breakpoint
CREATE INDEX "chain_progress_chain_completed_idx" ON "chain_progress" USING btree ("chain_id","completed_at") WHERE "chain_progress"."completed_at" is not null;
--> statement-breakpoint
-- A claim's value, as the claim path computes it (a box's drawn prize value, else the reward's value, else 0), as the
-- float8's 8 bytes: btree cannot deduplicate a float8 key, it can these. With the claim's day in the chain's time zone,
-- a chain's claims per reward, day and value are one index-only pass over a few posting lists.
ALTER TABLE "reward_claims" ADD COLUMN "value_bits" bytea GENERATED ALWAYS AS (float8send(coalesce((reward->'prize'->>'value')::float8, (reward->>'value')::float8, 0))) STORED NOT NULL;
--> statement-breakpoint
ALTER TABLE "reward_claims" ADD COLUMN "claimed_day" date;
--> statement-breakpoint
UPDATE "reward_claims" r SET "claimed_day" = (r."claimed_at" AT TIME ZONE q."timezone")::date
FROM "quest_chains" q WHERE q."id" = r."chain_id";
--> statement-breakpoint
ALTER TABLE "reward_claims" ALTER COLUMN "claimed_day" SET NOT NULL;
--> statement-breakpoint
CREATE INDEX "reward_claims_chain_task_day_idx" ON "reward_claims" USING btree ("chain_id","task_id","claimed_day","value_bits","reversed_at");
