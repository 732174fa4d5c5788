import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestData } from '../testing/test-data.js';
import { createDatabase } from './client.js';

// The service's sessions compile no JIT code (shared/db/client.ts): a plan
// whose cost is overestimated would otherwise pay hundreds of milliseconds of
// compilation for a statement that runs in a few (docs/performance.md).

const { database } = useTestData('db_client', { providers: false });
const opened = createDatabase({ url: database.url, poolSize: 1 });
afterAll(() => opened.close());

describe('service sessions', () => {
  it('run with JIT compilation off, set by the service at connection (the server default is on)', async () => {
    const [row] = await opened.db.execute<{ jit: string; source: string; serverDefault: string }>(
      sql`select setting as jit, source, boot_val as "serverDefault" from pg_settings where name = 'jit'`,
    );
    expect(row).toEqual({ jit: 'off', source: 'client', serverDefault: 'on' });
  });
});
