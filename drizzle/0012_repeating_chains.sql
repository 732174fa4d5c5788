-- Repeating chains (docs/quest-language.md, "Repeating chains"): a chain's recurrence, and the run (period) of each completion, walk and claim. 0: the one run of a chain that does not repeat.
ALTER TABLE "quest_chains" ADD COLUMN "recurrence" jsonb;
--> statement-breakpoint
ALTER TABLE "task_completions" ADD COLUMN "period_start_us" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "task_completions" DROP CONSTRAINT "task_completions_user_id_task_id_pk";
--> statement-breakpoint
ALTER TABLE "task_completions" ADD CONSTRAINT "task_completions_user_id_task_id_period_start_us_pk" PRIMARY KEY("user_id","task_id","period_start_us");
--> statement-breakpoint
ALTER TABLE "chain_progress" ADD COLUMN "period_start_us" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "chain_progress" DROP CONSTRAINT "chain_progress_user_id_chain_id_pk";
--> statement-breakpoint
ALTER TABLE "chain_progress" ADD CONSTRAINT "chain_progress_user_id_chain_id_period_start_us_pk" PRIMARY KEY("user_id","chain_id","period_start_us");
--> statement-breakpoint
ALTER TABLE "reward_claims" ADD COLUMN "period_start_us" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "reward_claims" DROP CONSTRAINT "reward_claims_once";
--> statement-breakpoint
ALTER TABLE "reward_claims" ADD CONSTRAINT "reward_claims_once" UNIQUE NULLS NOT DISTINCT("user_id","chain_id","task_id","period_start_us");
