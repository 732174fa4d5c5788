import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { toStatsResponse } from '../api/routes/quest-chains/stats/schema.js';
import { readChainStats } from '../core/quest-chains/read-chain-stats.js';
import { projectRoot } from '../shared/db/project-root.js';
import { createTestChain, createTestUser, type TestChain } from '../shared/testing/chains.js';
import { storeClaim, storeCompletion } from '../shared/testing/progress.js';
import { useTestData } from '../shared/testing/test-data.js';

const { database, platform, advertiser } = useTestData('cli_chain_stats');
const run = promisify(execFile);
let chain: TestChain;

/** The built CLI (dist/, compiled by the global setup), as an operator runs it. */
const cli = (args: string[]) =>
  run(process.execPath, [join(projectRoot(), 'dist', 'cli', 'main.js'), ...args], {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
    timeout: 20_000,
  });

beforeAll(async () => {
  chain = await createTestChain(database.db, platform.id, advertiser.id, {
    tasks: [{ event: 'registration' }, { event: 'kyc' }],
    budget: 300,
  });
  for (const [i, steps] of [2, 2, 1].entries()) {
    const userId = await createTestUser(database.db, platform.id, `cli-stats-${i}`);
    for (let task = 0; task < steps; task += 1) {
      await storeCompletion(database.db, {
        userId,
        providerId: platform.id,
        platformUserId: `cli-stats-${i}`,
        taskId: chain.taskIds[task]!,
        chainId: chain.id,
        at: new Date(Date.now() - 60_000).toISOString(),
      });
    }
    await storeClaim(database.db, { userId, chainId: chain.id, taskId: chain.taskIds[0]! });
  }
});

describe('quest-chains stats <id>', () => {
  it('prints the stats answer under --json, through the `chains` short name too', async () => {
    const expected = JSON.parse(
      JSON.stringify(toStatsResponse(await readChainStats({ db: database.db, readDb: database.db }, { chainId: chain.id }))),
    );
    expect(JSON.parse((await cli(['--json', 'quest-chains', 'stats', chain.id])).stdout)).toEqual(expected);
    expect(JSON.parse((await cli(['chains', 'stats', chain.id, '--json'])).stdout)).toEqual(expected);
  });

  it('prints the same as tables', async () => {
    const { stdout } = await cli(['chains', 'stats', chain.id]);
    const lines = stdout.split('\n');
    expect(lines[0]).toContain(chain.id);
    expect(lines).toContainEqual(expect.stringMatching(/^admitted\s+3$/));
    expect(lines).toContainEqual(expect.stringMatching(/^started\s+3$/));
    expect(lines).toContainEqual(expect.stringMatching(/^task 2: Task 2\s+2$/));
    expect(lines).toContainEqual(expect.stringMatching(/^completed\s+2$/));
    expect(lines).toContainEqual(expect.stringMatching(/^10 points\s+3\s+0$/));
    expect(stdout).toContain('budget 300, spent 0, left 300');
    expect(stdout).toContain('points paid out: 0');
  });

  it('gives a negative median its unit by its magnitude (completed by events from before the registration)', async () => {
    const early = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'registration' }] });
    const userId = await createTestUser(database.db, platform.id, 'cli-stats-early');
    await storeCompletion(database.db, {
      userId,
      providerId: platform.id,
      platformUserId: 'cli-stats-early',
      taskId: early.taskIds[0]!,
      chainId: early.id,
      at: new Date(Date.now() - 3 * 3_600_000).toISOString(),
    });
    const { stdout } = await cli(['chains', 'stats', early.id]);
    expect(stdout).toMatch(/^1\. Task 1\s+1\s+-3 h$/m);
  });

  it('fails with a clear message for an id that is not a chain', async () => {
    const failed = await cli(['chains', 'stats', platform.id]).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining(`Quest chain ${platform.id} not found`) });
  });
});
