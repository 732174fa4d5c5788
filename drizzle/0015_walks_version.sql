-- Walks kept in the worker between batches (docs/matching.md, "Walks kept between batches"): a worker may reuse the
-- walks it wrote or read for a user only while the user's walks_version is the one it saw. The version is the id of
-- the transaction that last wrote any of the user's chain_progress or task_completions rows, set here by statement
-- triggers, so every writer moves it: the matcher, an older worker during a rolling deploy, an operator's SQL.
ALTER TABLE "users" ADD COLUMN "walks_version" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE FUNCTION "stamp_walks_version"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  writer bigint := pg_current_xact_id()::text::bigint;
BEGIN
  -- Once per user and transaction: the matcher's stamp (stampUsers) sets it first for the users it stamps.
  UPDATE "users" u SET "walks_version" = writer
  FROM (SELECT DISTINCT "user_id" FROM changed_rows) c
  WHERE u."id" = c."user_id" AND u."walks_version" <> writer;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "chain_progress_walks_version_insert" AFTER INSERT ON "chain_progress" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION "stamp_walks_version"();
--> statement-breakpoint
CREATE TRIGGER "chain_progress_walks_version_update" AFTER UPDATE ON "chain_progress" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION "stamp_walks_version"();
--> statement-breakpoint
CREATE TRIGGER "chain_progress_walks_version_delete" AFTER DELETE ON "chain_progress" REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION "stamp_walks_version"();
--> statement-breakpoint
CREATE TRIGGER "task_completions_walks_version_insert" AFTER INSERT ON "task_completions" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION "stamp_walks_version"();
--> statement-breakpoint
CREATE TRIGGER "task_completions_walks_version_update" AFTER UPDATE ON "task_completions" REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION "stamp_walks_version"();
--> statement-breakpoint
CREATE TRIGGER "task_completions_walks_version_delete" AFTER DELETE ON "task_completions" REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION "stamp_walks_version"();
