CREATE TABLE "worker_leases" (
	"worker_id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
