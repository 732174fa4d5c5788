-- Leaderboards (product rules §19, docs/leaderboards.md): a platform's ranking of its users by points or by chains
-- completed, per period. The standings of the period in progress live in Redis, computed from the rows below and
-- from the source of each metric; a finished period's final standings are stored here.
CREATE TYPE "public"."leaderboard_metric" AS ENUM('points', 'chains_completed');
--> statement-breakpoint
CREATE TYPE "public"."leaderboard_status" AS ENUM('active', 'archived');
--> statement-breakpoint
CREATE TABLE "leaderboards" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"platform_id" uuid NOT NULL REFERENCES "providers"("id"),
	"mode" "mode" DEFAULT 'live' NOT NULL,
	"name" text NOT NULL,
	"metric" "leaderboard_metric" NOT NULL,
	"start_date" timestamp (6) with time zone NOT NULL,
	"end_date" timestamp (6) with time zone,
	"recurrence" jsonb,
	"size" integer DEFAULT 1000 NOT NULL,
	"status" "leaderboard_status" DEFAULT 'active' NOT NULL,
	-- Periods that start before this are final, or were over before the board existed: the finalizer goes on from here.
	"finalized_until" timestamp (6) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp (3) with time zone,
	CONSTRAINT "leaderboards_dates_check" CHECK ("end_date" IS NULL OR "end_date" > "start_date"),
	CONSTRAINT "leaderboards_size_check" CHECK ("size" BETWEEN 1 AND 100000)
);
--> statement-breakpoint
CREATE INDEX "leaderboards_platform_idx" ON "leaderboards" ("platform_id", "status");
--> statement-breakpoint
-- A finished period of a board, once: its final standings are the rows of leaderboard_standings written with it.
CREATE TABLE "leaderboard_periods" (
	"leaderboard_id" uuid NOT NULL REFERENCES "leaderboards"("id"),
	"period_start" timestamp (6) with time zone NOT NULL,
	"period_end" timestamp (6) with time zone NOT NULL,
	"ranked" integer NOT NULL,
	"finalized_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leaderboard_periods_pkey" PRIMARY KEY ("leaderboard_id", "period_start")
);
--> statement-breakpoint
CREATE TABLE "leaderboard_standings" (
	"leaderboard_id" uuid NOT NULL,
	"period_start" timestamp (6) with time zone NOT NULL,
	"rank" integer NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id"),
	"score" double precision NOT NULL,
	"reached_at" timestamp (6) with time zone NOT NULL,
	CONSTRAINT "leaderboard_standings_pkey" PRIMARY KEY ("leaderboard_id", "period_start", "rank"),
	CONSTRAINT "leaderboard_standings_user_unique" UNIQUE ("leaderboard_id", "period_start", "user_id"),
	CONSTRAINT "leaderboard_standings_period_fk" FOREIGN KEY ("leaderboard_id", "period_start")
		REFERENCES "leaderboard_periods"("leaderboard_id", "period_start")
);
--> statement-breakpoint
-- Users whose standings must be computed again (a chain completion or a points entry changed), written in the
-- transaction of the change and deleted once Redis has the new standings: a crash or a Redis outage between the
-- commit and the refresh delays it, the worker's sweeper finds it (core/leaderboards/refresh-standings.ts).
CREATE TABLE "leaderboard_refreshes" (
	"user_id" uuid PRIMARY KEY NOT NULL REFERENCES "users"("id"),
	"queued_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The points metric reads its entries here (shared/db/leaderboard-store.ts): per user, each ledger entry of a claim's
-- credit (§18): the credit itself, and each reversal's debit or credit back, with the time of the credit (the period it
-- counts in) and its own (when the score moved). Spends are no claim's: they do not lower a score.
CREATE VIEW "leaderboard_point_entries" AS
	SELECT e."user_id", e."amount"::float8 AS "amount", c."created_at" AS "credited_at", e."created_at" AS "at"
	FROM "point_entries" e
	JOIN "point_entries" c ON c."claim_id" = e."claim_id" AND c."kind" = 'claim'
	WHERE e."kind" IN ('claim', 'reversal');
--> statement-breakpoint
-- A board's rebuild reads a period's credits of every user: the ledger's claim entries by time.
CREATE INDEX "point_entries_credits_idx" ON "point_entries" ("created_at") INCLUDE ("user_id") WHERE "kind" = 'claim';
--> statement-breakpoint
-- The platform's read of its leaderboards needs the new permission; platform credentials made before it get it.
UPDATE "credentials" SET "permissions" = array_append("permissions", 'leaderboards:read')
WHERE "provider_id" IN (SELECT "id" FROM "providers" WHERE "type" = 'platform') AND NOT ('leaderboards:read' = ANY("permissions"));
