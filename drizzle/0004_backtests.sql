CREATE TABLE "backtests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"platform_id" uuid NOT NULL,
	"draft" jsonb NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"users_total" integer DEFAULT 0 NOT NULL,
	"users_done" integer DEFAULT 0 NOT NULL,
	"cursor" uuid,
	"tally" jsonb NOT NULL,
	"result" jsonb,
	"error" text,
	"runner_id" text,
	"heartbeat_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "backtests_status_check" CHECK ("backtests"."status" in ('running', 'completed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "backtests" ADD CONSTRAINT "backtests_platform_id_providers_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "users_platform_id_idx" ON "users" USING btree ("platform_id","id");
