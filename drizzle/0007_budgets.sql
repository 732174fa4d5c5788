-- Budgets and claim caps (docs/budgets.md): counters moved in the claim's transaction.
ALTER TABLE "quest_chains" ADD COLUMN "budget" double precision;
--> statement-breakpoint
ALTER TABLE "quest_chains" ADD COLUMN "budget_spent" double precision DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "quest_chains" ADD COLUMN "max_claims_per_reward" integer;
--> statement-breakpoint
ALTER TABLE "quest_tasks" ADD COLUMN "claims_count" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "chain_rewards" ADD COLUMN "claims_count" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Claims made before the counters existed count against them.
UPDATE "quest_tasks" t SET "claims_count" = c.n FROM (SELECT "task_id", count(*)::int AS n FROM "reward_claims" WHERE "task_id" IS NOT NULL GROUP BY "task_id") c WHERE c."task_id" = t."id";
--> statement-breakpoint
UPDATE "chain_rewards" r SET "claims_count" = c.n FROM (SELECT "chain_id", count(*)::int AS n FROM "reward_claims" WHERE "task_id" IS NULL GROUP BY "chain_id") c WHERE c."chain_id" = r."chain_id";
