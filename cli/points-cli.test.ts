import { beforeAll, describe, expect, it } from 'vitest';
import { toPointsResponse } from '../api/routes/points/schema.js';
import { readPoints } from '../core/points/read-points.js';
import { spendPoints } from '../core/points/spend-points.js';
import { claimReward } from '../core/rewards/claim-reward.js';
import { ensureTestTwin, findProvider } from '../shared/db/provider-store.js';
import { senderUserId } from '../shared/domain/ids.js';
import { createTestChain, createTestUser } from '../shared/testing/chains.js';
import { recordChanges } from '../shared/testing/change-notices.js';
import { storeCompletion } from '../shared/testing/progress.js';
import { useTestData } from '../shared/testing/test-data.js';
import { runCli } from './run-cli.test-helper.js';

// `quest-chains points <user>` (§18) through the built CLI: the read's answer
// under --json, the same as lines, its pages, the test mode's users, and usage errors.

const { database, platform, advertiser } = useTestData('cli_points');
const cli = (args: string[]) => runCli(args, { DATABASE_URL: database.url });
const webhooks = { deliver: async () => {} } as never;

beforeAll(async () => {
  const chain = await createTestChain(database.db, platform.id, advertiser.id, {
    tasks: [{ event: 'registration' }, { event: 'kyc' }],
    reward: false,
  });
  const userId = await createTestUser(database.db, platform.id, 'cli-points-1');
  for (const taskId of chain.taskIds) {
    await storeCompletion(database.db, {
      userId,
      providerId: platform.id,
      platformUserId: 'cli-points-1',
      taskId,
      chainId: chain.id,
      at: new Date(Date.now() - 60_000).toISOString(),
    });
    await claimReward(
      { db: database.db, webhooks, changes: recordChanges().changes },
      { platformId: platform.id, platformUserId: senderUserId('cli-points-1'), taskId },
    );
  }
  await spendPoints(
    { db: database.db },
    { platformId: platform.id, platformUserId: senderUserId('cli-points-1'), amount: 5n, idempotencyKey: 'shop', reason: null },
  );
});

describe('quest-chains points <platform_user_id>', () => {
  it("prints the read's answer under --json", async () => {
    const expected = JSON.parse(
      JSON.stringify(
        toPointsResponse(
          await readPoints(
            { db: database.db },
            { platformId: platform.id, platformUserId: senderUserId('cli-points-1'), page: { limit: 20 } },
          ),
        ),
      ),
    );
    const run = await cli(['--json', 'points', 'cli-points-1', '--platform', platform.id]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(expected);
    expect(expected).toMatchObject({ balance: 25, earned: 30, spent: 5, reversed: 0 });
  });

  it('prints the balance and the ledger as lines, a page at a time', async () => {
    const run = await cli(['points', 'cli-points-1', '--platform', platform.id, '--limit', '2']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('balance 25  (earned 30, spent 5, reversed 0)');
    expect(lines).toContainEqual(expect.stringMatching(/\sspend\s+-5\s+25\s/));
    expect(lines).toContainEqual(expect.stringMatching(/\sclaim\s+20\s+30\s/));
    const more = lines.find((line) => line.startsWith('more: --starting-after '))!;
    const next = await cli(['points', 'cli-points-1', '--platform', platform.id, '--starting-after', more.split(' ').at(-1)!]);
    expect(next.stdout).toMatch(/\sclaim\s+10\s+10\s/);
    expect(next.stdout).not.toContain('more:');
  });

  it("reads the platform's test users with --mode test", async () => {
    const twin = await ensureTestTwin(database.db, (await findProvider(database.db, platform.id))!);
    await createTestUser(database.db, twin, 'cli-points-1');
    const run = await cli(['--json', 'points', 'cli-points-1', '--platform', platform.id, '--mode', 'test']);
    expect(JSON.parse(run.stdout)).toMatchObject({ balance: 0, entries: [] });
  });

  it('refuses a missing platform, a bad limit or mode as usage (exit 2)', async () => {
    expect((await cli(['points', 'cli-points-1'])).code).toBe(2);
    const limit = await cli(['points', 'cli-points-1', '--platform', platform.id, '--limit', '101']);
    expect(limit).toMatchObject({ code: 2, stderr: expect.stringContaining('limit') });
    expect((await cli(['points', 'cli-points-1', '--platform', platform.id, '--mode', 'sandbox'])).code).toBe(2);
  });
});
