import { describe, expect, it } from 'vitest';
import { serviceUserId } from '../../shared/domain/ids.js';
import { createBatcher, type MatchWork } from './batcher.js';
import { createTurnstile } from './turnstile.js';

const events = (...ids: string[]): MatchWork => ({ eventIds: ids, userIds: [] });

describe('createBatcher', () => {
  it('merges work submitted together into one batch, and what arrives while it runs into the next', async () => {
    const runs: MatchWork[] = [];
    let release!: () => void;
    const firstRunning = new Promise<void>((resolve) => (release = resolve));
    const batcher = createBatcher(
      async (work) => {
        runs.push(work);
        if (runs.length === 1) await firstRunning;
        return runs.length;
      },
      { maxBatchSize: 100, inFlight: 1 },
    );

    const first = [batcher.submit(events('a')), batcher.submit(events('b', 'a'))];
    await new Promise((resolve) => setImmediate(resolve));
    const later = [batcher.submit(events('c')), batcher.submit({ eventIds: [], userIds: [serviceUserId('u')] })];
    release();
    expect(await Promise.all([...first, ...later])).toEqual([1, 1, 2, 2]);
    expect(runs).toEqual([events('a', 'b'), { eventIds: ['c'], userIds: [serviceUserId('u')] }]);
  });

  it('with a linger, lets a small batch wait for work that arrives soon after; without one, runs at once', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (const lingerMs of [0, 200]) {
      const runs: string[][] = [];
      const batcher = createBatcher(async (work) => runs.push([...work.eventIds]), { maxBatchSize: 100, inFlight: 1, lingerMs });
      const first = batcher.submit(events('a'));
      await sleep(20);
      await Promise.all([first, batcher.submit(events('b'))]);
      expect(runs, `lingerMs ${lingerMs}`).toEqual(lingerMs === 0 ? [['a'], ['b']] : [['a', 'b']]);
    }
  });

  it('never puts more than the limit in a batch, but never splits a job', async () => {
    const sizes: number[] = [];
    const batcher = createBatcher(async (work) => sizes.push(work.eventIds.length), { maxBatchSize: 3, inFlight: 1 });
    await Promise.all([
      batcher.submit(events('a', 'b')),
      batcher.submit(events('c', 'd')),
      batcher.submit(events('e', 'f', 'g', 'h')),
    ]);
    expect(sizes).toEqual([2, 2, 4]);
  });

  it('takes jobs from each source in turn: a backlog of one provider leaves room for another in the next batch', async () => {
    const batches: string[][] = [];
    const batcher = createBatcher(async (work) => batches.push([...work.eventIds]), { maxBatchSize: 1000, inFlight: 1 });
    // 40 jobs of 500 events from the noisy provider A, delivered before one job of the quiet provider B.
    const backlog = Array.from({ length: 40 }, (_, j) => ({
      eventIds: Array.from({ length: 500 }, (_, i) => `a${j}-${i}`),
      userIds: [],
      source: 'A',
    }));
    await Promise.all([...backlog, { eventIds: ['b'], userIds: [], source: 'B' }].map((work) => batcher.submit(work)));
    const firstWithB = batches.findIndex((batch) => batch.includes('b'));
    expect(firstWithB).toBe(0);
    // A's jobs keep their order (its events stay in arrival order for the walk).
    const aOrder = batches
      .flat()
      .filter((id) => id.endsWith('-0'))
      .map((id) => Number(id.slice(1, -2)));
    expect(aOrder).toEqual([...aOrder].sort((x, y) => x - y));
    expect(batches.flat()).toHaveLength(20_001);
  });

  it('runs each job of a failed batch alone, so only the bad one fails', async () => {
    const batcher = createBatcher(
      async (work) => {
        if (work.eventIds.includes('bad')) throw new Error('poison');
        return work.eventIds.join(',');
      },
      { maxBatchSize: 10, inFlight: 1 },
    );
    const results = await Promise.allSettled([
      batcher.submit(events('a')),
      batcher.submit(events('bad')),
      batcher.submit(events('c')),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'poison', 'c']);
  });
});

describe('createTurnstile', () => {
  it('runs steps in ticket order, and a released ticket whose step never ran does not block the next', async () => {
    const turnstile = createTurnstile();
    const order: string[] = [];
    const first = turnstile.ticket();
    const never = turnstile.ticket();
    const third = turnstile.ticket();
    const thirdDone = third.inTurn(async () => order.push('third'));
    const firstDone = first.inTurn(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      order.push('first');
    });
    never.release(); // its transaction failed before its step
    await Promise.all([firstDone, thirdDone]);
    expect(order).toEqual(['first', 'third']);
  });
});
