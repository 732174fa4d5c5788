CREATE TABLE "pending_events" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"provider_id" uuid NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "pending_events_received_idx" ON "pending_events" USING btree ("received_at","event_id");--> statement-breakpoint
-- Carry the unprocessed events over before their marker column goes.
INSERT INTO "pending_events" ("event_id", "provider_id", "received_at")
  SELECT "id", "provider_id", "received_at" FROM "events" WHERE "processed_at" IS NULL;--> statement-breakpoint
DROP INDEX "events_unprocessed_idx";--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "processed_at";--> statement-breakpoint
ALTER TABLE "chain_progress" ALTER COLUMN "updated_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "chain_progress" ADD COLUMN "mark_us" bigint;--> statement-breakpoint
ALTER TABLE "chain_progress" ADD COLUMN "mark_event_id" uuid;--> statement-breakpoint
-- Events walked before marks existed left no mark (and passed-over events no row at all):
-- re-evaluate every user once, so every walk state is rebuilt from the full recompute.
UPDATE "users" SET "needs_evaluation" = true;
