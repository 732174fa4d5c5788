-- Mystery boxes (docs/mystery-boxes.md): prize tables with stock, draw seeds (committed by their hash, revealed later), and each draw's inputs.
CREATE TABLE "reward_prizes" (
	"chain_id" uuid NOT NULL REFERENCES "quest_chains"("id"),
	"prize_id" text NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"value" double precision,
	"weight" integer NOT NULL,
	"stock" integer,
	CONSTRAINT "reward_prizes_chain_id_prize_id_pk" PRIMARY KEY("chain_id","prize_id"),
	CONSTRAINT "reward_prizes_stock_not_negative" CHECK ("stock" >= 0),
	CONSTRAINT "reward_prizes_weight_positive" CHECK ("weight" > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "reward_prizes_position_unique" ON "reward_prizes" USING btree ("chain_id","position");
--> statement-breakpoint
CREATE TABLE "draw_seeds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" uuid NOT NULL REFERENCES "quest_chains"("id"),
	"server_seed" text NOT NULL,
	"seed_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "draw_seeds_chain_idx" ON "draw_seeds" USING btree ("chain_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "draw_seeds_current_unique" ON "draw_seeds" USING btree ("chain_id") WHERE "retired_at" is null;
--> statement-breakpoint
CREATE TABLE "reward_draws" (
	"claim_id" uuid PRIMARY KEY NOT NULL REFERENCES "reward_claims"("id"),
	"chain_id" uuid NOT NULL REFERENCES "quest_chains"("id"),
	"seed_id" uuid NOT NULL REFERENCES "draw_seeds"("id"),
	"candidates" jsonb NOT NULL,
	"digest" text NOT NULL,
	"roll" integer NOT NULL,
	"total_weight" integer NOT NULL,
	"prize_id" text NOT NULL,
	"drawn_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
