import { afterEach, describe, expect, it } from 'vitest';
import { statsColumnsAdrift } from '../shared/testing/chain-stats-rows.js';
import { eventually } from '../shared/testing/eventually.js';
import { seededRandom } from '../shared/testing/random.js';
import { type Stack, startStack } from './harness/stack.js';
import {
  createModelChains,
  eventKey,
  type GeneratedEvent,
  generateEvents,
  matchedIn,
  modelMismatches,
  quiescent,
  sendAll,
  storedCompletions,
} from './support/progress-model.js';

// Whatever arrives in whatever order, duplicated or not, with however many
// workers (and crashes), the stored completions must equal the pure model's.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const SEED = Number(process.env.E2E_SEED ?? Date.now() % 2 ** 31);

async function expectStoredEqualsModel(
  current: Stack,
  chains: Awaited<ReturnType<typeof createModelChains>>,
  unique: GeneratedEvent[],
  ids: Map<string, string>,
  registered: string[],
) {
  expect(await modelMismatches(current.database, chains, unique, ids, registered), `seed ${SEED}`).toEqual([]);
  // What the chain stats read was written with the completions, and followed every move of theirs.
  expect(await statsColumnsAdrift(current.database.db), `seed ${SEED}`).toEqual([]);
}

describe('stored progress equals the pure model', () => {
  it('for shuffled, partly duplicated, concurrent events of several users with two workers', async () => {
    console.info(`randomized e2e seed: ${SEED} (replay with E2E_SEED=${SEED})`);
    const random = seededRandom(SEED);
    stack = await startStack('randomized', { workerCount: 2 });
    const platform = await stack.createProvider('platform');
    const advertiser = await stack.createProvider('advertiser');
    const chains = await createModelChains(stack, platform.id, advertiser.id);
    const users = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5'];
    const [early, late] = [users.slice(0, 3), users.slice(3)];
    for (const id of early)
      expect(
        (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: id } })).status,
      ).toBe(200);

    const { unique, sends } = generateEvents(random, [...users, 'never-registered'], 30);
    const ids = await sendAll(stack, platform.headers, sends);
    expect(ids.size).toBe(unique.length); // every duplicate got the first copy's id
    // Registered after their events were stored: those events must count too.
    for (const id of late)
      expect(
        (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: id } })).status,
      ).toBe(200);

    await eventually(() => quiescent(stack!.database), { timeoutMs: 60_000, what: 'all events processed' });
    await expectStoredEqualsModel(stack, chains, unique, ids, users);
    expect(await storedCompletions(stack.database, 'never-registered', chains[0]!.id)).toEqual({});
  });

  it('with reversals in random positions: before and after matching, re-sent afterwards, racing the rest', async () => {
    const seed = SEED + 2;
    console.info(`reversal e2e seed: ${seed}`);
    const random = seededRandom(seed);
    stack = await startStack('reversals', { workerCount: 2 });
    const platform = await stack.createProvider('platform');
    const advertiser = await stack.createProvider('advertiser');
    const chains = await createModelChains(stack, platform.id, advertiser.id);
    const users = ['r0', 'r1', 'r2', 'r3'];
    const [early, late] = [users.slice(0, 3), users.slice(3)];
    for (const id of early)
      expect(
        (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: id } })).status,
      ).toBe(200);

    const { unique, sends } = generateEvents(random, users, 30);
    const half = Math.floor(sends.length / 2);
    const ids = await sendAll(stack, platform.headers, sends.slice(0, half));
    // Some reversed at once (most still pending), some once matched, the rest of the events arriving meanwhile.
    const reversed = new Set<string>();
    const reverseSome = async (share: number) => {
      const picked = [...ids.values()].filter((id) => !reversed.has(id) && random.chance(share));
      for (const id of picked) reversed.add(id);
      for (let i = 0; i < picked.length; i += 7) {
        const chunk = picked.slice(i, i + 7);
        const answer =
          chunk.length === 1
            ? await stack!.call('POST', `/v1/events/${chunk[0]}/reverse`, {
                headers: platform.headers,
                body: { reason: 'refund' },
              })
            : await stack!.call('POST', '/v1/events/reverse', {
                headers: platform.headers,
                body: { events: chunk.map((event_id) => ({ event_id })) },
              });
        expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      }
    };
    await reverseSome(0.1);
    const rest = sendAll(stack, platform.headers, sends.slice(half));
    await eventually(() => quiescent(stack!.database), { timeoutMs: 60_000, what: 'first half processed' });
    await reverseSome(0.15);
    for (const [key, id] of await rest) ids.set(key, id);
    await reverseSome(0.1);
    // Re-sent after their reversal: duplicates of reversed events, which stay reversed.
    const resent = sends.filter((event) => reversed.has(ids.get(eventKey(event))!)).slice(0, 5);
    const again = await sendAll(stack, platform.headers, resent);
    for (const [key, id] of again) expect(id).toBe(ids.get(key));
    for (const id of late)
      expect(
        (await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: id } })).status,
      ).toBe(200);

    expect(reversed.size).toBeGreaterThan(0);
    await eventually(() => quiescent(stack!.database), { timeoutMs: 60_000, what: 'all events and re-evaluations processed' });
    const standing = unique.filter((event) => !reversed.has(ids.get(eventKey(event))!));
    expect(standing.length).toBeLessThan(unique.length);
    await expectStoredEqualsModel(stack, chains, standing, ids, users);
  });

  it('after a worker is killed with SIGKILL mid-burst and replaced', async () => {
    const seed = SEED + 1;
    console.info(`crash e2e seed: ${seed}`);
    const random = seededRandom(seed);
    stack = await startStack('crash', { workerCount: 2, env: { WORKER_CONCURRENCY: '4' } });
    const platform = await stack.createProvider('platform');
    const advertiser = await stack.createProvider('advertiser');
    const chains = await createModelChains(stack, platform.id, advertiser.id);
    const users = ['k0', 'k1', 'k2', 'k3'];
    for (const id of users)
      await stack.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: id } });

    const { unique, sends } = generateEvents(random, users, 60);
    const sending = sendAll(stack, platform.headers, sends);
    // Kill the first worker seen doing work, while the burst is still going. Which worker that is depends on the
    // partitions the users' ids fall in and on who leased them: a fixed one may hold none of this burst's users.
    const workers = [...stack.workers];
    const victim = await eventually(
      async () => workers.find((worker) => worker.lines().some((line) => matchedIn(line).length > 0)),
      { what: 'a worker to process' },
    );
    await victim.stop('SIGKILL');
    const ids = await sending;
    await stack.startWorker();

    await eventually(() => quiescent(stack!.database), { timeoutMs: 60_000, what: 'all events processed after the crash' });
    await expectStoredEqualsModel(stack, chains, unique, ids, users);
    // Never twice: no event was matched by two committed jobs, across every worker's log. (Not "exactly one
    // line": the kill may land between a job's commit and its log line; quiescent() already proved all processed.)
    const processed = stack.workers.flatMap((worker) => worker.lines().flatMap(matchedIn));
    expect(processed.length).toBeGreaterThan(0);
    expect(new Set(processed).size).toBe(processed.length);
  });
});
