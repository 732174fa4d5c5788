-- Counted, summed and streak tasks (docs/quest-language.md): thresholds on tasks, the zone streak periods are counted in, and each walk's tallies.
ALTER TABLE "quest_chains" ADD COLUMN "timezone" text DEFAULT 'UTC' NOT NULL;
--> statement-breakpoint
ALTER TABLE "quest_tasks" ADD COLUMN "condition_min_count" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "quest_tasks" ADD COLUMN "condition_min_total" double precision;
--> statement-breakpoint
ALTER TABLE "quest_tasks" ADD COLUMN "condition_streak" jsonb;
--> statement-breakpoint
ALTER TABLE "chain_progress" ADD COLUMN "tallies" jsonb;
