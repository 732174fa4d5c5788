import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody } from '../api/testing/chains.js';
import { projectRoot } from '../shared/db/project-root.js';
import { adminHeaders, TEST_ADMIN_TOKEN } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { nothingPending } from '../shared/testing/progress.js';
import { type Stack, startStack } from './harness/stack.js';

// docs/explain-and-backtest.md's shell blocks, run as written (bash, curl,
// node, npm run cli) against the built API and a worker, with the variables
// the guide asks the reader to set.

const guide = readFileSync(join(projectRoot(), 'docs', 'explain-and-backtest.md'), 'utf8');
const blocks = [...guide.matchAll(/<!-- guide:start -->\n```sh\n([\s\S]*?)```\n<!-- guide:end -->/g)].map((match) => match[1]!);

let stack: Stack;
let env: Record<string, string>;

function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { cwd: projectRoot(), env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  stack = await startStack('explain_guide', { workerCount: 1 });
  const platform = await stack.createProvider('platform');
  const advertiser = await stack.createProvider('advertiser');
  const chain = await stack.call('POST', '/admin/v1/quest-chains', {
    headers: adminHeaders,
    body: chainBody(platform.id, advertiser.id, {
      start: '2026-03-01T00:00:00Z',
      end: '2026-06-01T00:00:00Z',
      tasks: [{ event: 'kyc' }, { event: 'deposit', min_amount: 50 }],
    }),
  });
  await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'demo-user-1' } });
  for (const event of [
    { event_type: 'kyc', timestamp: '2026-03-02T00:00:00Z' },
    { event_type: 'deposit', timestamp: '2026-03-03T00:00:00Z', amount: 20, currency: 'EUR' },
  ]) {
    expect(
      (await stack.call('POST', '/v1/events', { headers: platform.headers, body: { user_id: 'demo-user-1', ...event } })).status,
    ).toBe(200);
  }
  await eventually(() => nothingPending(stack.database.db), { what: 'the worker to match the events' });
  env = {
    BASE: stack.api.url,
    KEY: platform.headers['x-api-key']!,
    SECRET: platform.headers['x-api-secret']!,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    PLATFORM_ID: platform.id,
    ADVERTISER_ID: advertiser.id,
    CHAIN_ID: chain.json.data.quest_chain.id,
    DATABASE_URL: stack.database.url,
  };
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('docs/explain-and-backtest.md', () => {
  it('has its three runnable blocks', () => {
    expect(blocks).toHaveLength(3);
  });

  it('explain: the curl answers the user with a verdict', async () => {
    const run = await bash(blocks[0]!);
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer.data.tasks[1].candidates[0]).toMatchObject({ amount: 20, verdict: 'amount_below_minimum' });
  });

  it('backtest: start, wait, read', async () => {
    const run = await bash(blocks[1]!);
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(answer.data).toMatchObject({
      status: 'completed',
      result: { users_evaluated: 1, users_started: 1, users_completed: 0, reward_cost: { task_rewards: 100, chain_rewards: 0 } },
    });
  });

  it('the CLI: backtest table and explain', async () => {
    const run = await bash(blocks[2]!);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/users started\s+1\n/);
    expect(run.stdout).toMatch(/^task 1 completed by /m);
    expect(run.stdout).toMatch(/amount_below_minimum$/m);
  });
});
