import { describe, expect, it } from 'vitest';
import { createMatchingFirstGate } from './matching-first.js';

// Deliveries wait for a matching backlog to clear, for at most maxYieldMs in a row, with one read
// of the backlog per poll whatever the number of deliveries waiting.
const gateOver = (backlogs: number[], maxYieldMs = 1000) => {
  let reads = 0;
  const gate = createMatchingFirstGate({
    backlog: async () => backlogs[Math.min(reads++, backlogs.length - 1)]!,
    maxYieldMs,
    pollMs: 10,
  });
  return { gate, reads: () => reads };
};

const timed = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

describe('matching-first gate', () => {
  it('lets a delivery through at once when no matching job waits', async () => {
    const { gate, reads } = gateOver([0]);
    expect(await timed(() => gate.pass())).toBeLessThan(10);
    expect(reads()).toBe(1);
  });

  it('holds deliveries while jobs wait, and lets them all through once none does, reading the backlog once a poll', async () => {
    const { gate, reads } = gateOver([500, 300, 100, 0]);
    const waited = await timed(() => Promise.all(Array.from({ length: 20 }, () => gate.pass())));
    expect(waited).toBeGreaterThanOrEqual(25);
    expect(reads()).toBe(4);
  });

  it('yields for at most maxYieldMs under a backlog that does not clear', async () => {
    const { gate } = gateOver([1000], 100);
    const waited = await timed(() => gate.pass());
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(400);
    // Past the limit, deliveries go on while the backlog lasts.
    expect(await timed(() => gate.pass())).toBeLessThan(20);
  });

  it('never waits with maxYieldMs 0, and counts a failed read as no backlog', async () => {
    expect(await timed(() => gateOver([1000], 0).gate.pass())).toBeLessThan(10);
    const failing = createMatchingFirstGate({
      backlog: () => Promise.reject(new Error('redis down')),
      maxYieldMs: 1000,
      pollMs: 10,
    });
    expect(await timed(() => failing.pass())).toBeLessThan(10);
  });
});
