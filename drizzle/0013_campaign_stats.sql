-- Campaign figures (docs/campaign-stats.md) are counted over one chain's rows: each table they read gets an index led by chain_id,
-- covering the columns counted so the big ones (a chain of 1,000,000 participants) are read by index-only scans.
CREATE INDEX "chain_progress_chain_idx" ON "chain_progress" ("chain_id") INCLUDE ("completed_tasks", "completed_at", "generation");
--> statement-breakpoint
CREATE INDEX "task_completions_chain_user_idx" ON "task_completions" ("chain_id", "user_id") INCLUDE ("task_id", "completed_at");
--> statement-breakpoint
CREATE INDEX "reward_claims_chain_idx" ON "reward_claims" ("chain_id", "task_id");
--> statement-breakpoint
CREATE INDEX "reward_draws_chain_prize_idx" ON "reward_draws" ("chain_id", "prize_id");
--> statement-breakpoint
-- The advertiser's read of its campaigns needs the new permission; advertiser credentials made before it get it (it reads counts, never a user).
UPDATE "credentials" SET "permissions" = array_append("permissions", 'quest_chains:stats')
WHERE "provider_id" IN (SELECT "id" FROM "providers" WHERE "type" = 'advertiser') AND NOT ('quest_chains:stats' = ANY("permissions"));
