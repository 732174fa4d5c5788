import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ListeningApp, listen } from '../api/testing/http-server.js';
import { createTestApp, type TestApp } from '../api/testing/test-app.js';
import { type ServiceProcess, startService } from '../e2e/harness/service.js';
import { createEmptyTestDatabase } from '../shared/testing/database.js';
import { serviceEnv } from '../shared/testing/service-env.js';
import { useTestData } from '../shared/testing/test-data.js';
import { runCli } from './run-cli.test-helper.js';

const { database } = useTestData('cli', { providers: false });
let scratch: string;
const run = promisify(execFile);

const cli = (args: string[], databaseUrl = database.url) => runCli(args, { DATABASE_URL: databaseUrl, PORT: '4321' });

async function cliJson(args: string[]) {
  const run = await cli(['--json', ...args]);
  expect(run.stderr.replace(/^warning: .*\n/gm, ''), `stderr of ${args.join(' ')}`).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'qcr-cli-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('bad input', () => {
  it.each([
    [['providers', 'create', '--type', 'publisher', '--name', 'X'], /^error: type: .*platform.*advertiser/m],
    [['providers', 'create', '--type', 'platform'], /required option '--name <name>'/],
    [['providers', 'deactivate', 'not-a-uuid'], /^error: id: Invalid UUID/m],
    [
      ['providers', 'activate', '00000000-0000-4000-8000-000000000000'],
      /^error: Provider 00000000-0000-4000-8000-000000000000 not found/m,
    ],
    [['credentials', 'deactivate', 'pk_missing'], /^error: Credential pk_missing not found/m],
    [['quest-chains', 'set-status', '00000000-0000-4000-8000-000000000000', 'finished'], /^error: status: /m],
    [['quest-chains', 'create', '--file', '/nonexistent/chain.json'], /^error: --file \/nonexistent\/chain.json: no such file/m],
    [['no-such-command'], /unknown command 'no-such-command'/],
  ])('%j exits non-zero with a clear message', async (args, message) => {
    const run = await cli(args);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('names the offending field of a chain file, and refuses a file that is not JSON', async () => {
    const provider = await cliJson(['providers', 'create', '--type', 'platform', '--name', 'Bad chains']);
    const file = join(scratch, 'bad-chain.json');
    await writeFile(
      file,
      JSON.stringify({
        platform_id: provider.id,
        advertiser_id: provider.id,
        name: 'x',
        start_date: '2026-01-01T00:00:00Z',
        end_date: '2027-01-01T00:00:00Z',
        tasks: [{ sequence_number: 1 }],
      }),
    );
    const invalid = await cli(['quest-chains', 'create', '--file', file]);
    // Input the schemas refuse is a usage error (exit 2), as commander's own.
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error: .*tasks\.0\.name/m);

    await writeFile(file, '{ not json');
    const broken = await cli(['quest-chains', 'create', '--file', file]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/not valid JSON/);
  });

  it('refuses a permission the provider type cannot hold', async () => {
    const advertiser = await cliJson(['providers', 'create', '--type', 'advertiser', '--name', 'Adv']);
    const run = await cli(['credentials', 'create', advertiser.id, '--permissions', 'events:write,users:register']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: permissions\.1: a advertiser cannot hold "users:register"/m);
  });

  it('explains a database without tables instead of printing a driver error', async () => {
    const empty = await createEmptyTestDatabase('cli_empty');
    try {
      const run = await cli(['providers', 'list'], empty.url);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/has no service tables: run `npm run db:migrate` first/);
    } finally {
      await empty.drop();
    }
  });
});

describe('--json output', () => {
  it('covers providers, credentials and quest chains end to end', async () => {
    const platform = await cliJson(['providers', 'create', '--type', 'platform', '--name', 'Json Platform']);
    expect(platform).toMatchObject({ id: expect.any(String), type: 'platform', name: 'Json Platform', status: 'active' });
    const advertiser = await cliJson(['providers', 'create', '--type', 'advertiser', '--name', 'Json Advertiser']);

    const listed = await cliJson(['providers', 'list']);
    expect(listed.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([platform.id, advertiser.id]));
    expect((await cliJson(['providers', 'deactivate', platform.id])).status).toBe('inactive');
    expect((await cliJson(['providers', 'activate', platform.id])).status).toBe('active');

    const created = await cli(['--json', 'credentials', 'create', platform.id, '--permissions', 'events:write']);
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/shown only now/);
    const credential = JSON.parse(created.stdout);
    expect(credential).toMatchObject({
      key: expect.stringMatching(/^pk_/),
      secret: expect.stringMatching(/^sk_/),
      permissions: ['events:write'],
      status: 'active',
    });

    const updated = await cliJson(['credentials', 'set-permissions', credential.key, 'events:write,users:register']);
    expect(updated.permissions).toEqual(['events:write', 'users:register']);
    expect(updated).not.toHaveProperty('secret');
    expect((await cliJson(['credentials', 'deactivate', credential.key])).status).toBe('inactive');
    const credentialList = await cliJson(['credentials', 'list', platform.id]);
    expect(credentialList).toEqual([expect.objectContaining({ key: credential.key, status: 'inactive' })]);
    expect(JSON.stringify(credentialList)).not.toContain(credential.secret);

    const file = join(scratch, 'chain.json');
    await writeFile(
      file,
      JSON.stringify({
        platform_id: platform.id,
        advertiser_id: advertiser.id,
        name: 'File chain',
        start_date: '2026-01-01T00:00:00+01:00',
        end_date: '2030-01-01T00:00:00Z',
        budget: 500,
        max_claims_per_reward: 50,
        max_completions: 40,
        tasks: [
          {
            sequence_number: 1,
            name: 'Sign up',
            condition_event_type: 'registration',
            reward_type: 'points',
            reward_name: 'Points',
            reward_value: 5,
          },
        ],
        chain_reward: {
          type: 'mystery_box',
          name: 'Box',
          prizes: [{ prize_id: 'p1', name: 'Prize', value: 2, weight: 1, stock: 10 }],
        },
      }),
    );
    const chain = await cliJson(['quest-chains', 'create', '--file', file]);
    expect(chain.quest_chain).toMatchObject({ name: 'File chain', status: 'active', start_date: '2025-12-31T23:00:00.000Z' });
    // §14's limits and a prize table, through the same schema as the admin API.
    expect(chain.quest_chain).toMatchObject({ budget: 500, max_claims_per_reward: 50, max_completions: 40, admitted_users: 0 });
    expect(chain.chain_reward.prizes).toEqual([{ prize_id: 'p1', name: 'Prize', value: 2, weight: 1, odds: 1, stock: 10 }]);
    expect(chain.tasks).toHaveLength(1);
    const chains = await cliJson(['quest-chains', 'list', '--platform', platform.id]);
    expect(chains.map((c: { quest_chain: { id: string } }) => c.quest_chain.id)).toEqual([chain.quest_chain.id]);
    const paused = await cliJson(['quest-chains', 'set-status', chain.quest_chain.id, 'paused']);
    expect(paused.quest_chain.status).toBe('paused');
    // About a dozen CLI processes, 1-2 s each to start: more than the default 30 s on a busy machine.
  }, 90_000);

  it('prints human lines without --json', async () => {
    const run = await cli(['providers', 'create', '--type', 'platform', '--name', 'Human']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^created platform "Human": [0-9a-f-]{36}\n$/);
  });
});

describe('seed:demo', () => {
  let api: TestApp;
  let server: ListeningApp;
  let worker: ServiceProcess;
  beforeAll(async () => {
    api = await createTestApp(database);
    server = await listen(api.app);
    // The printed lines are pasted against a running service: this app on a socket, and a real worker on its queue.
    worker = await startService(
      'worker',
      serviceEnv({ databaseUrl: database.url, queuePrefix: api.config.QUEUE_PREFIX, env: { RECONCILE_INTERVAL_MS: '500' } }),
    );
  });
  afterAll(async () => {
    await worker?.stop();
    await server?.close();
    await api?.close();
  });

  /** Runs one printed line as an operator pasting it would (sh and curl), returning the JSON it prints. */
  async function paste(line: string): Promise<any> {
    const { stdout } = await run('sh', ['-c', line], { timeout: 20_000 });
    return JSON.parse(stdout);
  }

  it('prints lines that work when pasted: past timestamps, the live stream, progress to 3/3 and the claim', async () => {
    const seeded = await cliJson(['seed:demo', '--base-url', server.url]);
    expect(seeded.curl).toHaveLength(5);
    expect(seeded.curl[0]).toContain(`${server.url}/v1/users/register`);
    expect(seeded.curl.join('\n')).toContain(seeded.platform.secret);
    const timestamps = seeded.curl.flatMap((line: string) =>
      [...line.matchAll(/"timestamp":"([^"]+)"/g)].map((match) => Date.parse(match[1]!)),
    );
    expect(timestamps).toHaveLength(3);
    for (const timestamp of timestamps) expect(timestamp).toBeLessThan(Date.now());

    // The live line: ready at once (curl stops after 2 s: the stream itself never ends).
    const live = await run('sh', ['-c', `${seeded.live} --max-time 2 || true`], { timeout: 20_000 });
    expect(live.stdout).toContain('event: ready');

    expect((await paste(seeded.curl[0])).data.platform_user_id).toBe(seeded.platform_user_id);
    for (const line of seeded.curl.slice(1, 4)) expect((await paste(line)).data.status).toBe('received');
    await vi.waitFor(
      async () => {
        const active = await paste(seeded.curl[4]);
        const entry = active.data.quest_chains.find(
          (c: { quest_chain: { id: string } }) => c.quest_chain.id === seeded.quest_chain_id,
        );
        expect(entry.user_progress).toMatchObject({ completed_tasks: 3, total_tasks: 3 });
      },
      { timeout: 20_000, interval: 200 },
    );
    const claimed = await paste(seeded.claim);
    expect(claimed).toMatchObject({ success: true, data: { quest_chain_id: seeded.quest_chain_id } });
  });

  it('reuses its platform, advertiser and chain on a second run, with new credentials and a new demo user', async () => {
    const first = await cliJson(['seed:demo']);
    const second = await cliJson(['seed:demo']);
    expect(second).toMatchObject({
      platform: { id: first.platform.id, reused: true },
      advertiser: { id: first.advertiser.id, reused: true },
      quest_chain_id: first.quest_chain_id,
      quest_chain_reused: true,
    });
    expect(second.platform.key).not.toBe(first.platform.key);
    expect(second.platform_user_id).not.toBe(first.platform_user_id);
    const providers = await cliJson(['providers', 'list']);
    const list = Array.isArray(providers) ? providers : (providers.providers ?? providers.data);
    expect(list.filter((p: { name: string }) => p.name === 'Demo Platform')).toHaveLength(1);

    // Both credentials work; the advertiser's may send events for the chain it sponsors.
    const headers = {
      'content-type': 'application/json',
      'x-api-key': first.platform.key,
      'x-api-secret': first.platform.secret,
    };
    expect((await api.call('POST', '/v1/users/register', { headers, body: { platform_user_id: 'reuse-check' } })).status).toBe(
      200,
    );
    const advertiser = {
      'content-type': 'application/json',
      'x-api-key': second.advertiser.key,
      'x-api-secret': second.advertiser.secret,
    };
    const advertiserEvent = await api.call('POST', '/v1/events', {
      headers: advertiser,
      body: {
        user_id: 'adv-user',
        event_type: 'transaction',
        timestamp: new Date(Date.now() - 60_000).toISOString(),
        amount: 150,
        currency: 'USD',
      },
    });
    expect(advertiserEvent.status).toBe(200);
  });
});
