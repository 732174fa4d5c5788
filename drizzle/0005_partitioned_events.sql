-- Events become range-partitioned by month of "occurred_at" (the event's own timestamp, which the
-- dedup key, the matcher's history reads and retention all bound). A key of a partitioned table must
-- contain the partition key: the primary key becomes (id, occurred_at); the dedup key contains it already.
-- Partitions are named events_YYYY_MM (UTC months); events_default takes what no partition covers.
-- The service creates the coming months' partitions itself (shared/db/event-partitions.ts).

-- task_completions.event_id keeps the completing event's id but no foreign key: a key referencing a
-- partitioned table must include the partition key, and completions must outlive the events that
-- retention drops (docs/decisions.md, "Partitioned events").
ALTER TABLE "task_completions" DROP CONSTRAINT IF EXISTS "task_completions_event_id_events_id_fk";--> statement-breakpoint
ALTER TABLE "events" RENAME TO "events_unpartitioned";--> statement-breakpoint
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_pkey" TO "events_unpartitioned_pkey";--> statement-breakpoint
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_dedup_key" TO "events_unpartitioned_dedup_key";--> statement-breakpoint
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_provider_id_providers_id_fk" TO "events_unpartitioned_provider_id_fk";--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"provider_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"event_type" text NOT NULL,
	"occurred_at" timestamp(6) with time zone NOT NULL,
	"amount" double precision,
	"currency" text,
	"reference" text,
	"metadata" jsonb,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "events_id_occurred_at_pk" PRIMARY KEY("id","occurred_at"),
	CONSTRAINT "events_dedup_key" UNIQUE("provider_id","user_id","event_type","occurred_at")
) PARTITION BY RANGE ("occurred_at");--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;--> statement-breakpoint
-- One partition per UTC month holding stored events (within ten years back and one ahead; the rest
-- stays in the default partition), and the current month and the three after it.
DO $$
DECLARE
  month timestamp;
BEGIN
  FOR month IN
    SELECT date_trunc('month', "occurred_at" AT TIME ZONE 'UTC') FROM "events_unpartitioned"
      WHERE "occurred_at" >= now() - interval '10 years' AND "occurred_at" < now() + interval '1 year'
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => k) FROM generate_series(0, 3) AS k
  LOOP
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I PARTITION OF "events" FOR VALUES FROM (%L) TO (%L)',
      'events_' || to_char(month, 'YYYY_MM'),
      (month AT TIME ZONE 'UTC')::text,
      ((month + interval '1 month') AT TIME ZONE 'UTC')::text
    );
  END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "events" ("id", "provider_id", "user_id", "event_type", "occurred_at", "amount", "currency", "reference", "metadata", "received_at")
  SELECT "id", "provider_id", "user_id", "event_type", "occurred_at", "amount", "currency", "reference", "metadata", "received_at" FROM "events_unpartitioned";--> statement-breakpoint
-- The matcher finds a pending event's row by (id, occurred_at), so it reads one partition, not all.
ALTER TABLE "pending_events" ADD COLUMN "occurred_at" timestamp(6) with time zone;--> statement-breakpoint
UPDATE "pending_events" AS p SET "occurred_at" = e."occurred_at" FROM "events_unpartitioned" AS e WHERE e."id" = p."event_id";--> statement-breakpoint
-- A marker without its event could never be claimed (the claim joins the event): nothing to match.
DELETE FROM "pending_events" WHERE "occurred_at" IS NULL;--> statement-breakpoint
ALTER TABLE "pending_events" ALTER COLUMN "occurred_at" SET NOT NULL;--> statement-breakpoint
DROP TABLE "events_unpartitioned";
