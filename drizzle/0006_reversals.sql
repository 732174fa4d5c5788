-- Reversals (docs/reversals.md): a refunded event stops counting; what it earned is recomputed.
ALTER TABLE "events" ADD COLUMN "reversed_at" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "reversal_reason" text;
--> statement-breakpoint
-- Held: the completion stands only because its reward was claimed (its own events no longer complete it).
ALTER TABLE "task_completions" ADD COLUMN "held" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- Bumped each time a completion of the (user, chain) is undone, so a completion earned again is announced again.
ALTER TABLE "chain_progress" ADD COLUMN "generation" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Where the claimed completion stood when claimed: the walk keeps the task completed from there (a hold).
ALTER TABLE "reward_claims" ADD COLUMN "completed_event_id" uuid;
--> statement-breakpoint
ALTER TABLE "reward_claims" ADD COLUMN "completed_at" timestamp (6) with time zone;
--> statement-breakpoint
ALTER TABLE "reward_claims" ADD COLUMN "reversed_at" timestamp (3) with time zone;
--> statement-breakpoint
UPDATE "reward_claims" r SET "completed_event_id" = c."event_id", "completed_at" = c."completed_at"
FROM "task_completions" c WHERE r."task_id" IS NOT NULL AND c."user_id" = r."user_id" AND c."task_id" = r."task_id";
--> statement-breakpoint
ALTER TABLE "quest_chains" ADD COLUMN "reward_hold_seconds" integer DEFAULT 0 NOT NULL;
