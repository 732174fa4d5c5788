-- The walks version trigger (0015) joined its transition table to users, and which join the planner chose rested
-- on estimates it cannot make there: a plan kept for the function's session (a generic plan, the writer unknown)
-- that read users with `walks_version <> writer` as one row scanned all of users for every matching statement,
-- and in a small table (5,400 users) as the outer side of a nested loop, re-reading the transition table for
-- each user: up to 100 ms a statement, twice for every upsert (docs/performance.md, "What each change bought").
-- The changed users are now looked up by primary key, a plan that does not depend on the table's statistics.
CREATE OR REPLACE FUNCTION "stamp_walks_version"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  writer bigint := pg_current_xact_id()::text::bigint;
BEGIN
  -- Once per user and transaction: the matcher's stamp (stampUsers) sets it first for the users it stamps.
  UPDATE "users" u SET "walks_version" = writer
  WHERE u."id" = ANY (ARRAY(SELECT DISTINCT "user_id" FROM changed_rows)) AND u."walks_version" <> writer;
  RETURN NULL;
END
$$;
