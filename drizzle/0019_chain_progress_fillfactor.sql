-- chain_progress is rewritten in place: every batch upserts the walks it moved (a mark, a tally, a completion),
-- about 1.7 writes an accepted event in the bench's world. An update that changes no indexed column (most of
-- them: a mark or a tally) is a HOT update, with no new entry in the table's three indexes, only while the
-- row's page has room for the new version. Pages filled to the brim by inserts had none: 69-79 % of the world's
-- updates were HOT. Leaving 30 % of each new page free made it 85-87 %, and Postgres's CPU an event about 3 %
-- less (docs/performance.md, "What each change bought"), besides the index bloat a long-lived table gathers.
-- Pages already written keep their fill until rewritten (VACUUM FULL, CLUSTER, or pg_repack; docs/operations.md);
-- this takes a brief SHARE UPDATE EXCLUSIVE lock and rewrites nothing.
ALTER TABLE "chain_progress" SET (fillfactor = 70);
