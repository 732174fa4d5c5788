-- Points (product rules §18, docs/points.md): a ledger per user, credited by the claims of points rewards, debited by
-- their reversals and by spends; and auto-claim, the chains whose rewards the service claims as they are earned.
ALTER TABLE "quest_chains" ADD COLUMN "auto_claim" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
CREATE TYPE "public"."point_entry_kind" AS ENUM('claim', 'spend', 'reversal');
--> statement-breakpoint
-- One row per user with points: the balance and its three figures, moved with every entry in the entry's transaction.
-- Its row lock is the ledger's order: an entry is written only under it, so balance_after and seq follow commit order
-- and two spends can never both see the balance one of them empties.
CREATE TABLE "point_balances" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"earned" bigint DEFAULT 0 NOT NULL,
	"spent" bigint DEFAULT 0 NOT NULL,
	"reversed" bigint DEFAULT 0 NOT NULL,
	"entries" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "point_balances_sum_check" CHECK ("balance" = "earned" - "spent" - "reversed")
);
--> statement-breakpoint
-- A spend, once per (user, idempotency key): a repeat of the key answers this row.
CREATE TABLE "point_spends" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"amount" bigint NOT NULL,
	"reason" text,
	"balance_after" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "point_spends_key_once" UNIQUE("user_id","idempotency_key"),
	CONSTRAINT "point_spends_amount_check" CHECK ("amount" > 0)
);
--> statement-breakpoint
-- The ledger: append-only (the trigger below refuses any update); seq numbers a user's entries 1, 2, 3, … in order.
CREATE TABLE "point_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"kind" "point_entry_kind" NOT NULL,
	"amount" bigint NOT NULL,
	"balance_after" bigint NOT NULL,
	"claim_id" uuid,
	"spend_id" uuid,
	"quest_chain_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "point_entries_user_seq_unique" UNIQUE("user_id","seq"),
	CONSTRAINT "point_entries_source_check" CHECK (("kind" = 'spend') = ("spend_id" IS NOT NULL) AND ("kind" = 'spend') = ("claim_id" IS NULL))
);
--> statement-breakpoint
-- A reward earned in a chain with auto_claim, waiting for the worker to claim it (from due_at: its completion plus the
-- chain's reward hold). Written in the matcher's transaction; deleted once the claim is made or refused for good.
CREATE TABLE "auto_claims" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"chain_id" uuid NOT NULL,
	"task_id" uuid,
	"period_start_us" bigint DEFAULT 0 NOT NULL,
	"due_at" timestamp(6) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_claims_once" UNIQUE NULLS NOT DISTINCT("user_id","chain_id","task_id","period_start_us")
);
--> statement-breakpoint
ALTER TABLE "point_balances" ADD CONSTRAINT "point_balances_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "point_spends" ADD CONSTRAINT "point_spends_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "point_entries" ADD CONSTRAINT "point_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "point_entries" ADD CONSTRAINT "point_entries_claim_id_reward_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."reward_claims"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "point_entries" ADD CONSTRAINT "point_entries_spend_id_point_spends_id_fk" FOREIGN KEY ("spend_id") REFERENCES "public"."point_spends"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "point_entries" ADD CONSTRAINT "point_entries_quest_chain_id_quest_chains_id_fk" FOREIGN KEY ("quest_chain_id") REFERENCES "public"."quest_chains"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "auto_claims" ADD CONSTRAINT "auto_claims_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "auto_claims" ADD CONSTRAINT "auto_claims_chain_id_quest_chains_id_fk" FOREIGN KEY ("chain_id") REFERENCES "public"."quest_chains"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "auto_claims" ADD CONSTRAINT "auto_claims_task_id_quest_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."quest_tasks"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
-- The chain stats' points paid out (§17): a chain's entries in one index-only pass.
CREATE INDEX "point_entries_chain_idx" ON "point_entries" ("quest_chain_id") INCLUDE ("amount") WHERE "quest_chain_id" IS NOT NULL;
--> statement-breakpoint
-- A claim's entries (its credit, then any reversal and restoration): what a reversal reads.
CREATE INDEX "point_entries_claim_idx" ON "point_entries" ("claim_id") WHERE "claim_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "point_spends_user_idx" ON "point_spends" ("user_id");
--> statement-breakpoint
CREATE INDEX "auto_claims_due_idx" ON "auto_claims" ("due_at");
--> statement-breakpoint
-- Claims of points rewards made before the ledger: each credits its value (a value that is not whole rounded down,
-- as pointsOfClaim credits it), and one marked reversed has its debit after it, so every balance starts as the
-- ledger would have kept it. Numbered per user in the order the claims and their marks happened.
WITH "credits" AS (
	SELECT "id" AS "claim_id", "user_id", "chain_id", "claimed_at", "reversed_at",
	       floor(least(("reward"->>'value')::float8, 1e12))::bigint AS "amount"
	FROM "reward_claims"
	WHERE "reward"->>'type' = 'points' AND jsonb_typeof("reward"->'value') = 'number' AND ("reward"->>'value')::float8 >= 1
), "moves" AS (
	SELECT "user_id", "claim_id", "chain_id", 'claim'::"point_entry_kind" AS "kind", "amount", "claimed_at" AS "at", 0 AS "step" FROM "credits"
	UNION ALL
	SELECT "user_id", "claim_id", "chain_id", 'reversal', -"amount", "reversed_at", 1 FROM "credits" WHERE "reversed_at" IS NOT NULL
)
INSERT INTO "point_entries" ("user_id", "seq", "kind", "amount", "balance_after", "claim_id", "quest_chain_id", "created_at")
SELECT "user_id", row_number() OVER "w", "kind", "amount", sum("amount") OVER "w", "claim_id", "chain_id", "at"
FROM "moves"
WINDOW "w" AS (PARTITION BY "user_id" ORDER BY "at", "step", "claim_id" ROWS UNBOUNDED PRECEDING);
--> statement-breakpoint
INSERT INTO "point_balances" ("user_id", "balance", "earned", "spent", "reversed", "entries")
SELECT "user_id", sum("amount"), coalesce(sum("amount") FILTER (WHERE "kind" = 'claim'), 0), 0,
       -coalesce(sum("amount") FILTER (WHERE "kind" = 'reversal'), 0), count(*)
FROM "point_entries" GROUP BY "user_id";
--> statement-breakpoint
CREATE FUNCTION "refuse_point_entry_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'point_entries is append-only: an entry is never changed (a correction is a new entry)';
END
$$;
--> statement-breakpoint
CREATE TRIGGER "point_entries_append_only" BEFORE UPDATE ON "point_entries" FOR EACH STATEMENT EXECUTE FUNCTION "refuse_point_entry_update"();
