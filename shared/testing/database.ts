import { randomBytes } from 'node:crypto';
import { createDatabase } from '../db/client.js';
import { migrateWithLock } from '../db/migrate.js';
import { createDatabaseNamed, dropDatabaseNamed } from '../db/server-admin.js';

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const uniqueSuffix = () => randomBytes(5).toString('hex');

/** Where a test database is made: the shared test server unless a test runs its own (e2e/harness/private-postgres.ts). */
export interface TestDatabaseOptions {
  /** The server's maintenance database (`postgres`). */
  serverUrl?: string;
  /** Another build's migrations (its drizzle/ folder) instead of this one's: a benchmark's A/B against that build. */
  migrationsFolder?: string;
}

/** A fresh database without any table (not migrated): `url`, and `drop` to remove it. */
export async function createEmptyTestDatabase(label: string, options: TestDatabaseOptions = {}) {
  const serverUrl = options.serverUrl ?? SERVER_URL;
  const name = `qcr_test_${label.replace(/\W/g, '_').slice(0, 30)}_${uniqueSuffix()}`;
  await createDatabaseNamed(serverUrl, name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      await dropDatabaseNamed(serverUrl, name);
    },
  };
}

/** A fresh, migrated database owned by one test file; `drop` removes it. */
export async function createTestDatabase(label: string, options: TestDatabaseOptions = {}) {
  const { name, url, drop } = await createEmptyTestDatabase(label, options);
  await migrateWithLock(url, options.migrationsFolder);
  const database = createDatabase({ url, poolSize: 10 });
  return {
    name,
    url,
    ...database,
    async drop() {
      await database.close();
      await drop();
    },
  };
}

export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;
