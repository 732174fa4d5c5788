import { describe, expect, it } from 'vitest';
import { createTestChain, createTestUser } from '../shared/testing/chains.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { storeCompletion } from '../shared/testing/progress.js';
import { useTestData } from '../shared/testing/test-data.js';
import { runCli } from './run-cli.test-helper.js';

// `quest-chains leaderboards create|list|show|archive`, the built CLI run as an operator runs it.

const { database, platform, advertiser } = useTestData('leaderboards_cli');
const queuePrefix = `cli-${uniqueSuffix()}`;

const cli = (args: string[], json = true) =>
  runCli(json ? ['--json', ...args] : args, { DATABASE_URL: database.url, QUEUE_PREFIX: queuePrefix });

const data = async (args: string[]) => {
  const run = await cli(args);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

describe('quest-chains leaderboards', () => {
  it('creates, lists, shows the standings (around a user too) and archives', async () => {
    const now = Date.now();
    const created = await data([
      'leaderboards',
      'create',
      '--platform',
      platform.id,
      '--name',
      'Most chains',
      '--metric',
      'chains_completed',
      '--start',
      new Date(now - 3_600_000).toISOString(),
      '--size',
      '50',
    ]);
    expect(created).toMatchObject({ platform_id: platform.id, metric: 'chains_completed', recurrence: null, size: 50 });
    const daily = await data([
      'leaderboards',
      'create',
      '--platform',
      platform.id,
      '--name',
      'Daily points',
      '--metric',
      'points',
      '--start',
      '2026-01-01T00:00:00+01:00',
      '--every',
      'day',
      '--timezone',
      'Europe/Berlin',
    ]);
    expect(daily).toMatchObject({ recurrence: { every: 'day', timezone: 'Europe/Berlin' }, size: 1000, status: 'active' });
    expect((await data(['leaderboards', 'list', '--platform', platform.id])).map((b: { id: string }) => b.id)).toEqual([
      daily.id,
      created.id,
    ]);

    const chain = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'cli-lb' }], reward: false });
    for (const [user, minutesAgo] of [
      ['ana', 10],
      ['ben', 20],
    ] as const) {
      const userId = await createTestUser(database.db, platform.id, user);
      await storeCompletion(database.db, {
        userId,
        providerId: platform.id,
        platformUserId: user,
        taskId: chain.taskIds[0]!,
        chainId: chain.id,
        at: new Date(now - minutesAgo * 60_000).toISOString(),
      });
    }
    // Never read before: built from Postgres on this first read.
    const shown = await data(['leaderboards', 'show', created.id, '--around', 'ana']);
    expect(shown).toMatchObject({
      final: false,
      entries: [
        { rank: 1, platform_user_id: 'ben', score: 1 },
        { rank: 2, platform_user_id: 'ana', score: 1 },
      ],
      user: { rank: 2, score: 1 },
    });
    const human = await cli(['leaderboards', 'show', created.id], false);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Most chains (chains_completed)');
    expect(human.stdout).toMatch(/1\s+1\s+ben/);

    expect(await data(['leaderboards', 'archive', created.id])).toMatchObject({ id: created.id, status: 'archived' });
    const archived = await cli(['leaderboards', 'show', created.id]);
    expect(archived.code).toBe(2);
  });

  it('refuses what the API refuses, naming the field', async () => {
    const run = await cli([
      'leaderboards',
      'create',
      '--platform',
      platform.id,
      '--name',
      'x',
      '--metric',
      'logins',
      '--start',
      '2026-01-01T00:00:00Z',
    ]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr)).toMatchObject({ success: false, code: 'invalid_input' });
    expect(JSON.parse(run.stderr).error).toContain('metric');
    const unknown = await cli(['leaderboards', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ code: 'not_found' });
  });
});
