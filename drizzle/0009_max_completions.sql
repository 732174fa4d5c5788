-- A chain's cap on the users who may complete it (docs/budgets.md, "Completion caps"): places taken by the matcher, one per admitted user.
ALTER TABLE "quest_chains" ADD COLUMN "max_completions" integer;
--> statement-breakpoint
ALTER TABLE "quest_chains" ADD COLUMN "admitted_users" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TABLE "chain_admissions" (
	"chain_id" uuid NOT NULL REFERENCES "quest_chains"("id"),
	"user_id" uuid NOT NULL REFERENCES "users"("id"),
	"admitted_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_admissions_chain_id_user_id_pk" PRIMARY KEY("chain_id","user_id")
);
