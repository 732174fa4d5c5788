import { afterAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '../testing/database.js';
import { createDatabase } from './client.js';
import { migrateWithLock } from './migrate.js';
import { pingDatabase } from './ping.js';
import { dropDatabaseNamed, ensureDatabase } from './server-admin.js';

// The default DATABASE_URL names `quest_chains`, which a fresh server does not
// have: the first migration run creates it, so the defaults work on a fresh server.

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const created: string[] = [];

function absentDatabaseUrl() {
  const name = `qcr_test_ensure_${uniqueSuffix()}`;
  created.push(name);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

afterAll(async () => {
  for (const name of created) await dropDatabaseNamed(SERVER_URL, name);
});

describe('a database that does not exist yet', () => {
  it('is created and migrated by the migration run, even with four replicas starting at once', async () => {
    const url = absentDatabaseUrl();
    await Promise.all(Array.from({ length: 4 }, () => migrateWithLock(url)));
    const database = createDatabase({ url, poolSize: 1 });
    try {
      await pingDatabase(database.db);
    } finally {
      await database.close();
    }
  });

  it('is created once: ensureDatabase reports the creation, then leaves it alone', async () => {
    const url = absentDatabaseUrl();
    expect(await ensureDatabase(url)).toBe(true);
    expect(await ensureDatabase(url)).toBe(false);
  });

  it('still fails loudly for what creating cannot fix (a server nobody listens on)', async () => {
    const url = new URL(absentDatabaseUrl());
    url.port = '1';
    await expect(ensureDatabase(url.toString())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
