import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '../testing/database.js';
import { migrateWithLock } from './migrate.js';
import { migrationsFolder } from './project-root.js';

// Each migration of the journal is applied exactly once.
const MIGRATIONS = (JSON.parse(readFileSync(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] })
  .entries.length;

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
const name = `qcr_test_migrate_${uniqueSuffix()}`;
const url = new URL(SERVER_URL);
url.pathname = `/${name}`;

afterAll(async () => {
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

describe('migrateWithLock', () => {
  it('lets several replicas start at once on an empty database: one migrates, all succeed', async () => {
    await admin.unsafe(`create database "${name}"`);
    await Promise.all(Array.from({ length: 4 }, () => migrateWithLock(url.toString())));
    const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      const [applied] = await db<{ count: number }[]>`select count(*)::int as count from drizzle.__drizzle_migrations`;
      // Tables, not counting the partitions of events (0005), whose number depends on the month.
      const [tables] = await db<{ count: number }[]>`
        select count(*)::int as count from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition`;
      expect(applied?.count).toBe(MIGRATIONS);
      expect(tables?.count).toBe(31); // 0002 added worker_leases, 0003 the three webhook tables, 0004 backtests, 0008 the three mystery-box tables, 0009 chain_admissions, 0016 the three points tables and auto_claims, 0017 the four leaderboard tables
      // And again, with nothing left to do.
      await migrateWithLock(url.toString());
      const [again] = await db<{ count: number }[]>`select count(*)::int as count from drizzle.__drizzle_migrations`;
      expect(again?.count).toBe(MIGRATIONS);
    } finally {
      await db.end();
    }
  });
});
