import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { migrationsFolder } from '../db/project-root.js';
import { createEmptyTestDatabase } from './database.js';

/** The migrations before `tag`, in a folder of their own. */
function migrationsBefore(tag: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'qcr-migrations-'));
  const journal = JSON.parse(readFileSync(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  journal.entries = journal.entries.filter((entry) => entry.tag < tag);
  for (const entry of journal.entries)
    copyFileSync(join(migrationsFolder(), `${entry.tag}.sql`), join(folder, `${entry.tag}.sql`));
  mkdirSync(join(folder, 'meta'));
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify(journal));
  return folder;
}

/**
 * For a test of one migration on a populated database: a database of the
 * test file's own, and `migrateToBefore()` to bring it to the schema as it was
 * before migration `tag` (then the test stores rows, runs every migration and
 * checks them). `client` is one UTC connection to it; all is dropped after the file.
 */
export function useDatabaseBeforeMigration(tag: string, name: string) {
  let database: Awaited<ReturnType<typeof createEmptyTestDatabase>> | undefined;
  let client: postgres.Sql | undefined;
  let folder: string | undefined;
  beforeAll(async () => {
    database = await createEmptyTestDatabase(name);
    client = postgres(database.url, { max: 1, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
    folder = migrationsBefore(tag);
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });
  return {
    get url() {
      return database!.url;
    },
    get client() {
      return client!;
    },
    migrateToBefore: () => migrate(drizzle(client!), { migrationsFolder: folder! }),
  };
}
