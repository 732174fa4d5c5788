import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody } from '../api/testing/chains.js';
import { type ServiceProcess, startService } from '../e2e/harness/service.js';
import { insertOrFindEvents } from '../shared/db/event-store.js';
import { senderUserId } from '../shared/domain/ids.js';
import { parseUtcTimestamp } from '../shared/domain/timestamp.js';
import { createTestChain, createTestUser } from '../shared/testing/chains.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { serviceEnv } from '../shared/testing/service-env.js';
import { useTestData } from '../shared/testing/test-data.js';
import { runCli } from './run-cli.test-helper.js';

// The built CLI's `chains backtest` and `chains explain`, as an operator runs them;
// a backtest is queued, and run by a worker process on the same database and queues.

const { database, platform, advertiser } = useTestData('cli_chains');
const QUEUE_PREFIX = `cli-chains-${uniqueSuffix()}`;
let worker: ServiceProcess | undefined;
let scratch: string;

const cli = (args: string[]) => runCli(args, { DATABASE_URL: database.url, QUEUE_PREFIX }, { timeoutMs: 30_000 });

const at = (text: string) => parseUtcTimestamp(text)!;
const TASKS = [{ event: 'kyc' }, { event: 'deposit', min_amount: 50 }];
let chainFile: string;

beforeAll(async () => {
  // Its reconciler leaves this file's stored events alone (the explain test reads them as not yet processed),
  // however long a loaded machine takes between storing them and reading them.
  worker = await startService(
    'worker',
    serviceEnv({ databaseUrl: database.url, queuePrefix: QUEUE_PREFIX, env: { RECONCILE_MIN_AGE_MS: '3600000' } }),
  );
  scratch = await mkdtemp(join(tmpdir(), 'qcr-cli-chains-'));
  for (const name of ['ann', 'bob', 'cyd']) await createTestUser(database.db, platform.id, name);
  const event = (userId: string, eventType: string, timestamp: string, amount: number | null = null) => ({
    providerId: platform.id,
    userId: senderUserId(userId),
    eventType,
    occurredAt: at(timestamp),
    amount,
  });
  await insertOrFindEvents(database.db, [
    event('ann', 'kyc', '2026-01-02T00:00:00Z'),
    event('ann', 'deposit', '2026-01-03T00:00:00Z', 80),
    event('bob', 'kyc', '2026-01-02T00:00:00Z'),
    event('bob', 'deposit', '2026-01-03T00:00:00Z', 10),
    event('cyd', 'deposit', '2026-01-03T00:00:00Z', 90),
  ]);
  chainFile = join(scratch, 'draft.json');
  await writeFile(
    chainFile,
    JSON.stringify(
      chainBody(platform.id, advertiser.id, { start: '2026-01-01T00:00:00Z', end: '2026-02-01T00:00:00Z', tasks: TASKS }),
    ),
  );
});
afterAll(async () => {
  await worker?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('quest-chains chains backtest <file>', () => {
  it('prints the result as JSON under --json', async () => {
    const run = await cli(['--json', 'chains', 'backtest', chainFile]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'completed',
      progress: { users_done: 3, users_total: 3 },
      result: {
        users_evaluated: 3,
        users_started: 2,
        users_completed: 1,
        tasks: [
          { sequence_number: 1, users_completed: 2 },
          { sequence_number: 2, users_completed: 1 },
        ],
        reward_cost: { task_rewards: 10 + 10 + 20, chain_rewards: 50 },
        sample: [expect.objectContaining({ completed_tasks: expect.any(Number) }), expect.any(Object)],
      },
    });
  });

  it('prints a result table (the bar goes to stderr, on a terminal only)', async () => {
    const run = await cli(['chains', 'backtest', chainFile]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/users completed\s+1\n/);
    expect(run.stdout).toMatch(/task {2}users completed\n\s+1\s+2\n\s+2\s+1\n/);
    expect(run.stdout).toMatch(/reward cost: task rewards 40, chain rewards 50/);
  });

  it('refuses a file that is not a chain, naming the field (exit 2)', async () => {
    const bad = join(scratch, 'bad.json');
    await writeFile(bad, JSON.stringify({ ...chainBody(platform.id, advertiser.id), tasks: [] }));
    const run = await cli(['chains', 'backtest', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: .*tasks/m);
    const missing = await cli(['chains', 'backtest', join(scratch, 'none.json')]);
    expect(missing.stderr).toMatch(/none\.json: no such file/);
  });
});

describe('quest-chains chains explain <chainId> <platformUserId>', () => {
  it('explains a user as the API does', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2026-01-01T00:00:00Z',
      end: '2026-02-01T00:00:00Z',
      tasks: TASKS,
    });
    const json = await cli(['--json', 'chains', 'explain', chain.id, 'bob']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout);
    expect(data).toMatchObject({ quest_chain_id: chain.id, user: { exists: true }, pending_events: 2 });
    // Events stored through the data layer are still pending (queued for no worker): not yet processed.
    expect(data.tasks[1].candidates).toEqual([expect.objectContaining({ amount: 10, verdict: 'not_yet_processed' })]);
    const human = await cli(['chains', 'explain', chain.id, 'bob']);
    expect(human.stdout).toMatch(/^task 2 locked\n.*not_yet_processed$/m);
    const unknown = await cli(['chains', 'explain', chain.id, 'zed']);
    expect(unknown.stdout).toMatch(/not registered/);
  });
});
