import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createTestProvider, type TestProvider } from './fixtures.js';

export interface TestData {
  /** The file's own migrated database (dropped after its last test). */
  database: TestDatabase;
  /** A platform with every platform permission. */
  platform: TestProvider;
  /** An advertiser with every advertiser permission. */
  advertiser: TestProvider;
}

export interface TestDataOptions {
  /** Create the platform and advertiser (default true); false for files that test provider creation itself. */
  providers?: boolean;
}

/**
 * An object filled in by `beforeAll`: the same object before and after, so a
 * test file can destructure it at module scope and use the fields in its
 * tests and hooks (never at module scope, where they are still empty).
 */
export function emptyHandle<T extends object>(): T {
  return {} as T;
}

/**
 * One line of setup for a test file that needs Postgres (worker and shared
 * tests; API tests use `useTestService` from api/testing, which adds the app):
 *
 *   const { database, platform, advertiser } = useTestData('matching');
 *
 * registers the file's `beforeAll` (fresh migrated database, a platform and an
 * advertiser with credentials) and its `afterAll` (drop). Users and chains are
 * made in tests with `createTestUser` and `createTestChain` (./chains.js).
 */
export function useTestData(label: string, options: TestDataOptions = {}): TestData {
  const data: TestData = { database: emptyHandle(), platform: emptyHandle(), advertiser: emptyHandle() };
  let created: TestDatabase | undefined;
  beforeAll(async () => {
    created = await createTestDatabase(label);
    Object.assign(data.database, created);
    if (options.providers !== false) {
      Object.assign(data.platform, await createTestProvider(created.db, 'platform'));
      Object.assign(data.advertiser, await createTestProvider(created.db, 'advertiser'));
    }
  });
  afterAll(async () => {
    await created?.drop();
  });
  return data;
}
