-- Test mode (docs/test-mode.md): each provider may have a test twin, a provider of its own whose id is the live one's
-- with fixed bits flipped; test credentials belong to the twin, so every tenancy rule keeps test data apart.
ALTER TABLE "providers" ADD COLUMN "live_provider_id" uuid REFERENCES "providers"("id");
--> statement-breakpoint
CREATE UNIQUE INDEX "providers_live_provider_unique" ON "providers" USING btree ("live_provider_id");
--> statement-breakpoint
CREATE TYPE "public"."mode" AS ENUM('live', 'test');
--> statement-breakpoint
ALTER TABLE "quest_chains" ADD COLUMN "mode" "mode" DEFAULT 'live' NOT NULL;
