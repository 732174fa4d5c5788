import { randomBytes } from 'node:crypto';
import { createDatabase } from '../db/client.js';
import { migrateWithLock } from '../db/migrate.js';
import { createDatabaseNamed, dropDatabaseNamed } from '../db/server-admin.js';

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const uniqueSuffix = () => randomBytes(5).toString('hex');

/** A fresh database without any table (not migrated): `url`, and `drop` to remove it. */
export async function createEmptyTestDatabase(label: string) {
  const name = `qcr_test_${label.replace(/\W/g, '_').slice(0, 30)}_${uniqueSuffix()}`;
  await createDatabaseNamed(SERVER_URL, name);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      await dropDatabaseNamed(SERVER_URL, name);
    },
  };
}

/** A fresh, migrated database owned by one test file; `drop` removes it. */
export async function createTestDatabase(label: string) {
  const { name, url, drop } = await createEmptyTestDatabase(label);
  await migrateWithLock(url);
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
