import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainBody, DAY_MS, iso, type TaskSpec } from '../api/testing/chains.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { eventually } from '../shared/testing/eventually.js';
import { type Stack, startStack } from './harness/stack.js';
import { quiescent } from './support/progress-model.js';

// The built API and two worker processes against one database: chains are
// created over the admin API, events sent over HTTP, and progress observed
// only through GET /v1/quest-chains/active (polled until it shows).

const HOUR_MS = 60 * 60 * 1000;
const now = Date.now();
/** Chain windows of the tests: ten days back to ten days ahead, so every chain here is running. */
const START = now - 10 * DAY_MS;
const END = now + 10 * DAY_MS;
/** A point inside every window, with later points `minutes` after it. */
const at = (minutes: number) => iso(now - 5 * DAY_MS + minutes * 60_000);
/** One microsecond before a millisecond-precision ISO instant. */
const microBefore = (ms: number) => iso(ms - 1).replace(/Z$/, '999Z');

let stack: Stack;
let advertiser: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  stack = await startStack('quest_chains', { workerCount: 2 });
  advertiser = await stack.createProvider('advertiser');
});
afterAll(async () => {
  await stack?.stop();
});

interface Scenario {
  platform: { id: string; headers: Record<string, string> };
  chain(options: Parameters<typeof chainBody>[2]): Promise<{ id: string; taskIds: string[] }>;
  register(userId: string): Promise<void>;
  send(userId: string, event: { event_type: string; timestamp: string; amount?: number; currency?: string }): Promise<void>;
  read(userId: string): Promise<any>;
  /** The user's entry for one chain once `ready` holds for it. */
  entryWhen(userId: string, chainId: string, ready: (entry: any) => boolean): Promise<any>;
}

/** A platform of its own per test, so each read lists only that test's chains. */
async function scenario(): Promise<Scenario> {
  const platform = await stack.createProvider('platform');
  const read = async (userId: string) => {
    const answer = await stack.call('GET', `/v1/quest-chains/active/${userId}`, { headers: platform.headers });
    expect(answer.status).toBe(200);
    return answer.json.data;
  };
  return {
    platform,
    async chain(options) {
      const answer = await stack.call('POST', '/admin/v1/quest-chains', {
        headers: adminHeaders,
        body: chainBody(platform.id, advertiser.id, { start: iso(START), end: iso(END), ...options }),
      });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      return { id: answer.json.data.quest_chain.id, taskIds: answer.json.data.tasks.map((task: { id: string }) => task.id) };
    },
    async register(userId) {
      expect(
        (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: userId } }))
          .status,
      ).toBe(200);
    },
    async send(userId, event) {
      const answer = await stack.call('POST', '/v1/events', { headers: platform.headers, body: { user_id: userId, ...event } });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    },
    read,
    entryWhen(userId, chainId, ready) {
      return eventually(
        async () => {
          const entry = (await read(userId)).quest_chains.find((e: any) => e.quest_chain.id === chainId);
          return entry && ready(entry) ? entry : undefined;
        },
        { timeoutMs: 20_000, what: `progress of ${userId} in ${chainId}` },
      );
    },
  };
}

const statuses = (entry: any) => entry.tasks.map((task: { user_status: string }) => task.user_status);
const completedAt = (data: any, chainId: string) =>
  data.claimable_tasks.filter((t: any) => t.quest_chain_id === chainId).map((t: any) => [t.sequence_number, t.completed_at]);
const settled = () => eventually(() => quiescent(stack.database), { timeoutMs: 20_000, what: 'all events processed' });

const ORDERED: TaskSpec[] = [
  { event: 'registration' },
  { event: 'kyc' },
  { event: 'transaction', min_amount: 10, currency: 'USD' },
];

describe('quest chains end to end (API + two workers)', () => {
  it('shows 1 of 3 tasks as progress 33 with statuses completed, available, locked', async () => {
    const s = await scenario();
    const chain = await s.chain({ tasks: ORDERED });
    await s.register('one-of-three');
    await s.send('one-of-three', { event_type: 'registration', timestamp: at(0) });
    const entry = await s.entryWhen('one-of-three', chain.id, (e) => e.user_progress.completed_tasks === 1);
    expect(statuses(entry)).toEqual(['completed', 'available', 'locked']);
    expect(entry.user_progress).toMatchObject({ status: 'in_progress', progress: 33, completed_at: null, total_tasks: 3 });
    expect(entry.chain_reward.claimable).toBe(false);
  });

  it('passes over an event that does not match the current task of an ordered chain', async () => {
    const s = await scenario();
    const chain = await s.chain({ tasks: ORDERED });
    await s.register('ordered');
    await s.send('ordered', { event_type: 'registration', timestamp: at(0) });
    // Task 2 (kyc) is current: this transaction is passed over, and stays so.
    await s.send('ordered', { event_type: 'transaction', timestamp: at(1), amount: 50, currency: 'usd' });
    await s.send('ordered', { event_type: 'kyc', timestamp: at(2) });
    await s.send('ordered', { event_type: 'transaction', timestamp: at(3), amount: 5, currency: 'usd' }); // below the minimum
    await s.send('ordered', { event_type: 'transaction', timestamp: at(4), amount: 10, currency: 'usd' });
    const entry = await s.entryWhen('ordered', chain.id, (e) => e.user_progress.status === 'completed');
    expect(entry.user_progress).toMatchObject({ progress: 100, completed_tasks: 3, completed_at: at(4) });
    expect(entry.chain_reward.claimable).toBe(true);
    expect(completedAt(await s.read('ordered'), chain.id)).toEqual([
      [1, at(0)],
      [2, at(2)],
      [3, at(4)],
    ]);
  });

  it('completes an ordered chain from events delivered in reverse order', async () => {
    const s = await scenario();
    const chain = await s.chain({ tasks: ORDERED });
    await s.register('reverse');
    await s.send('reverse', { event_type: 'transaction', timestamp: at(20), amount: 10, currency: 'USD' });
    await settled();
    expect((await s.read('reverse')).quest_chains[0].user_progress.completed_tasks).toBe(0);
    await s.send('reverse', { event_type: 'kyc', timestamp: at(10) });
    await settled();
    await s.send('reverse', { event_type: 'registration', timestamp: at(0) });
    const entry = await s.entryWhen('reverse', chain.id, (e) => e.user_progress.status === 'completed');
    expect(entry.user_progress.completed_at).toBe(at(20));
    expect(completedAt(await s.read('reverse'), chain.id)).toEqual([
      [1, at(0)],
      [2, at(10)],
      [3, at(20)],
    ]);
  });

  it('lets each event complete the lowest-numbered open task it matches in an any-order chain', async () => {
    const s = await scenario();
    const chain = await s.chain({
      anyOrder: true,
      tasks: [{ event: 'deposit' }, { event: 'trade' }, { event: 'trade' }, { event: 'kyc' }],
    });
    await s.register('any');
    await s.send('any', { event_type: 'kyc', timestamp: at(0) });
    await s.send('any', { event_type: 'trade', timestamp: at(1) });
    const partial = await s.entryWhen('any', chain.id, (e) => e.user_progress.completed_tasks === 2);
    expect(statuses(partial)).toEqual(['available', 'completed', 'available', 'completed']);
    expect(partial.user_progress.progress).toBe(50);
    await s.send('any', { event_type: 'trade', timestamp: at(2) });
    await s.send('any', { event_type: 'deposit', timestamp: at(3) });
    const entry = await s.entryWhen('any', chain.id, (e) => e.user_progress.status === 'completed');
    expect(entry.user_progress.completed_at).toBe(at(3));
    expect(completedAt(await s.read('any'), chain.id)).toEqual([
      [1, at(3)],
      [2, at(1)],
      [3, at(2)],
      [4, at(0)],
    ]);
  });

  it('counts a task window as [after, before) and a chain window as [start, end)', async () => {
    const s = await scenario();
    const after = now - 5 * DAY_MS;
    const before = after + HOUR_MS;
    const taskWindow = await s.chain({ anyOrder: true, tasks: [{ event: 'trade', after: iso(after), before: iso(before) }] });
    const chainStart = now - DAY_MS;
    const chainEnd = now + DAY_MS;
    const chainWindow = await s.chain({ start: iso(chainStart), end: iso(chainEnd), tasks: [{ event: 'deposit' }] });
    await s.register('windows');
    await s.send('windows', { event_type: 'trade', timestamp: microBefore(after) });
    await s.send('windows', { event_type: 'trade', timestamp: iso(before) });
    await s.send('windows', { event_type: 'deposit', timestamp: microBefore(chainStart) });
    await s.send('windows', { event_type: 'deposit', timestamp: iso(chainEnd) });
    await settled();
    const untouched = await s.read('windows');
    expect(untouched.quest_chains.map((e: any) => e.user_progress.completed_tasks)).toEqual([0, 0]);

    await s.send('windows', { event_type: 'trade', timestamp: iso(after) });
    await s.send('windows', { event_type: 'deposit', timestamp: iso(chainStart) });
    expect(
      (await s.entryWhen('windows', taskWindow.id, (e) => e.user_progress.status === 'completed')).user_progress.completed_at,
    ).toBe(iso(after));
    expect(
      (await s.entryWhen('windows', chainWindow.id, (e) => e.user_progress.status === 'completed')).user_progress.completed_at,
    ).toBe(iso(chainStart));
  });

  it('lists neither inactive nor future nor ended chains, though their progress is kept', async () => {
    const s = await scenario();
    const listed = await s.chain({ name: 'listed', tasks: [{ event: 'visit' }] });
    await s.chain({ name: 'draft', status: 'draft', tasks: [{ event: 'visit' }] });
    const paused = await s.chain({ name: 'paused', status: 'paused', tasks: [{ event: 'visit' }] });
    await s.chain({ name: 'ended status', status: 'ended', tasks: [{ event: 'visit' }] });
    await s.chain({ name: 'future', start: iso(now + 2 * DAY_MS), end: iso(now + 4 * DAY_MS), tasks: [{ event: 'visit' }] });
    await s.chain({
      name: 'ended window',
      start: iso(now - 4 * DAY_MS),
      end: iso(now - 2 * DAY_MS),
      tasks: [{ event: 'visit' }],
    });
    await s.register('lister');
    await s.send('lister', { event_type: 'visit', timestamp: at(0) });
    await s.entryWhen('lister', listed.id, (e) => e.user_progress.status === 'completed');
    expect((await s.read('lister')).quest_chains.map((e: any) => e.quest_chain.name)).toEqual(['listed']);

    // The paused chain counted the event all along: reactivated, it shows completed at once.
    const patched = await stack.call('PATCH', `/admin/v1/quest-chains/${paused.id}`, {
      headers: adminHeaders,
      body: { status: 'active' },
    });
    expect(patched.status).toBe(200);
    const resumed = await s.entryWhen('lister', paused.id, () => true);
    expect(resumed.user_progress.status).toBe('completed');
  });

  it('counts events sent before the user registered, and before the chain existed', async () => {
    const s = await scenario();
    const early = await s.chain({ tasks: ORDERED });
    await s.send('late', { event_type: 'registration', timestamp: at(0) });
    await s.send('late', { event_type: 'kyc', timestamp: at(1) });
    await settled();
    expect((await s.read('late')).user.exists).toBe(false);
    await s.register('late');
    const entry = await s.entryWhen('late', early.id, (e) => e.user_progress.completed_tasks === 2);
    expect(statuses(entry)).toEqual(['completed', 'completed', 'available']);

    // A chain created now matches the user's stored events too (the create flags the platform's users).
    const later = await s.chain({ name: 'created later', anyOrder: true, tasks: [{ event: 'kyc' }] });
    const matched = await s.entryWhen('late', later.id, (e) => e.user_progress.status === 'completed');
    expect(matched.user_progress.completed_at).toBe(at(1));
  });
});
