CREATE TYPE "public"."active_status" AS ENUM('active', 'inactive');--> statement-breakpoint
CREATE TYPE "public"."provider_type" AS ENUM('platform', 'advertiser');--> statement-breakpoint
CREATE TYPE "public"."chain_status" AS ENUM('draft', 'active', 'paused', 'ended');--> statement-breakpoint
CREATE TYPE "public"."reward_kind" AS ENUM('task', 'chain');--> statement-breakpoint
CREATE TABLE "credentials" (
	"key" text PRIMARY KEY NOT NULL,
	"provider_id" uuid NOT NULL,
	"secret_hash" text NOT NULL,
	"permissions" text[] NOT NULL,
	"status" "active_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"type" "provider_type" NOT NULL,
	"name" text NOT NULL,
	"status" "active_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"platform_id" uuid NOT NULL,
	"platform_user_id" text NOT NULL,
	"country_code" char(2),
	"user_metadata" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"needs_evaluation" boolean DEFAULT true NOT NULL,
	"progress_changed_at" timestamp (3) with time zone,
	CONSTRAINT "users_platform_user_unique" UNIQUE("platform_id","platform_user_id")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"event_type" text NOT NULL,
	"occurred_at" timestamp(6) with time zone NOT NULL,
	"amount" double precision,
	"currency" text,
	"reference" text,
	"metadata" jsonb,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp (3) with time zone,
	CONSTRAINT "events_dedup_key" UNIQUE("provider_id","user_id","event_type","occurred_at")
);
--> statement-breakpoint
CREATE TABLE "chain_rewards" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" uuid NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"value" double precision,
	"image_urls" jsonb,
	CONSTRAINT "chain_rewards_chain_unique" UNIQUE("chain_id")
);
--> statement-breakpoint
CREATE TABLE "quest_chains" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"platform_id" uuid NOT NULL,
	"advertiser_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"logo_url" text,
	"background_image_url" text,
	"start_date" timestamp(6) with time zone NOT NULL,
	"end_date" timestamp(6) with time zone NOT NULL,
	"status" "chain_status" DEFAULT 'active' NOT NULL,
	"allow_any_order" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quest_tasks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" uuid NOT NULL,
	"sequence_number" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"condition_event_type" text NOT NULL,
	"condition_min_amount" double precision,
	"condition_currency" text,
	"condition_after_timestamp" timestamp(6) with time zone,
	"condition_before_timestamp" timestamp(6) with time zone,
	"reward_type" text NOT NULL,
	"reward_name" text NOT NULL,
	"reward_value" double precision NOT NULL,
	"reward_image_urls" jsonb,
	CONSTRAINT "quest_tasks_chain_sequence_unique" UNIQUE("chain_id","sequence_number")
);
--> statement-breakpoint
CREATE TABLE "chain_progress" (
	"user_id" uuid NOT NULL,
	"chain_id" uuid NOT NULL,
	"completed_tasks" integer NOT NULL,
	"total_tasks" integer NOT NULL,
	"completed_at" timestamp(6) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_progress_user_id_chain_id_pk" PRIMARY KEY("user_id","chain_id")
);
--> statement-breakpoint
CREATE TABLE "task_completions" (
	"user_id" uuid NOT NULL,
	"task_id" uuid NOT NULL,
	"chain_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"completed_at" timestamp(6) with time zone NOT NULL,
	"recorded_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_completions_user_id_task_id_pk" PRIMARY KEY("user_id","task_id")
);
--> statement-breakpoint
CREATE TABLE "account_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"advertiser_id" uuid NOT NULL,
	"advertiser_user_id" text NOT NULL,
	"linked_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_links_user_advertiser_unique" UNIQUE("user_id","advertiser_id"),
	CONSTRAINT "account_links_platform_advertiser_user_unique" UNIQUE("platform_id","advertiser_id","advertiser_user_id")
);
--> statement-breakpoint
CREATE TABLE "link_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"advertiser_id" uuid NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"used_at" timestamp (3) with time zone,
	"used_advertiser_user_id" text,
	"link_id" uuid
);
--> statement-breakpoint
CREATE TABLE "reward_claims" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" "reward_kind" NOT NULL,
	"chain_id" uuid NOT NULL,
	"task_id" uuid,
	"reward" jsonb NOT NULL,
	"claimed_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reward_claims_once" UNIQUE NULLS NOT DISTINCT("user_id","chain_id","task_id")
);
--> statement-breakpoint
CREATE TABLE "service_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_platform_id_providers_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chain_rewards" ADD CONSTRAINT "chain_rewards_chain_id_quest_chains_id_fk" FOREIGN KEY ("chain_id") REFERENCES "public"."quest_chains"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quest_chains" ADD CONSTRAINT "quest_chains_platform_id_providers_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quest_chains" ADD CONSTRAINT "quest_chains_advertiser_id_providers_id_fk" FOREIGN KEY ("advertiser_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quest_tasks" ADD CONSTRAINT "quest_tasks_chain_id_quest_chains_id_fk" FOREIGN KEY ("chain_id") REFERENCES "public"."quest_chains"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chain_progress" ADD CONSTRAINT "chain_progress_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chain_progress" ADD CONSTRAINT "chain_progress_chain_id_quest_chains_id_fk" FOREIGN KEY ("chain_id") REFERENCES "public"."quest_chains"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_completions" ADD CONSTRAINT "task_completions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_completions" ADD CONSTRAINT "task_completions_task_id_quest_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."quest_tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_completions" ADD CONSTRAINT "task_completions_chain_id_quest_chains_id_fk" FOREIGN KEY ("chain_id") REFERENCES "public"."quest_chains"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_completions" ADD CONSTRAINT "task_completions_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_links" ADD CONSTRAINT "account_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_links" ADD CONSTRAINT "account_links_platform_id_providers_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_links" ADD CONSTRAINT "account_links_advertiser_id_providers_id_fk" FOREIGN KEY ("advertiser_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD CONSTRAINT "link_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD CONSTRAINT "link_tokens_platform_id_providers_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD CONSTRAINT "link_tokens_advertiser_id_providers_id_fk" FOREIGN KEY ("advertiser_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_tokens" ADD CONSTRAINT "link_tokens_link_id_account_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."account_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_claims" ADD CONSTRAINT "reward_claims_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_claims" ADD CONSTRAINT "reward_claims_chain_id_quest_chains_id_fk" FOREIGN KEY ("chain_id") REFERENCES "public"."quest_chains"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_claims" ADD CONSTRAINT "reward_claims_task_id_quest_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."quest_tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credentials_provider_idx" ON "credentials" USING btree ("provider_id");--> statement-breakpoint
CREATE INDEX "users_needs_evaluation_idx" ON "users" USING btree ("id") WHERE "users"."needs_evaluation";--> statement-breakpoint
CREATE INDEX "events_unprocessed_idx" ON "events" USING btree ("received_at") WHERE "events"."processed_at" is null;--> statement-breakpoint
CREATE INDEX "quest_chains_platform_idx" ON "quest_chains" USING btree ("platform_id","status");--> statement-breakpoint
CREATE INDEX "task_completions_chain_idx" ON "task_completions" USING btree ("chain_id");--> statement-breakpoint
CREATE INDEX "account_links_advertiser_user_idx" ON "account_links" USING btree ("advertiser_id","advertiser_user_id");