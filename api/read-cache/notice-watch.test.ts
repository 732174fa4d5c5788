import { describe, expect, it } from 'vitest';
import { probeToken } from '../../shared/live/channel.js';
import { capturingLogger } from '../../shared/testing/captured-log.js';
import { NoticeWatch } from './notice-watch.js';

// The watch alone, on a clock and a loopback of its own: a probe "published" on a channel
// comes back through `heard` unless the channel is cut.

const INTERVAL_MS = 100;

function watchOver(channels: string[]) {
  let now = 1_000_000;
  const { logger, lines: logged } = capturingLogger<{ msg: string; channels?: string[] }>({
    level: 'info',
    name: 'notice-watch-test',
  });
  const cut = new Set<string>();
  const servingChanges: boolean[] = [];
  const repairs: string[][] = [];
  const watch: NoticeWatch = new NoticeWatch({
    channels,
    intervalMs: INTERVAL_MS,
    publish: async (channel, message) => {
      if (!cut.has(channel)) queueMicrotask(() => watch.heard(channel, probeToken(message)!));
    },
    onServing: (serving) => servingChanges.push(serving),
    onSilent: (silent) => repairs.push([...silent]),
    logger,
    now: () => now,
  });
  const advance = async (ms: number) => {
    for (let passed = 0; passed < ms; passed += INTERVAL_MS) {
      now += INTERVAL_MS;
      watch.tick();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { watch, cut, servingChanges, repairs, advance, logged };
}

describe('NoticeWatch', () => {
  it('serves only once every channel has answered a probe', async () => {
    const { watch, cut, advance } = watchOver(['a', 'b']);
    cut.add('b');
    watch.tick();
    await advance(INTERVAL_MS * 3);
    expect(watch.isServing).toBe(false);
    cut.delete('b');
    await advance(INTERVAL_MS);
    expect(watch.isServing).toBe(true);
  });

  it('stops serving within five intervals of a channel going silent, asks for its repair, and serves again once it answers', async () => {
    const { watch, cut, servingChanges, repairs, advance } = watchOver(['a', 'b']);
    watch.tick();
    await advance(INTERVAL_MS);
    expect(watch.isServing).toBe(true);
    cut.add('a');
    await advance(INTERVAL_MS * 5);
    expect(watch.isServing).toBe(false);
    expect(repairs.at(-1)).toEqual(['a']);
    cut.delete('a');
    await advance(INTERVAL_MS);
    expect(watch.isServing).toBe(true);
    expect(servingChanges).toEqual([true, false, true]);
  });

  it('logs a channel that stays silent once per outage, naming it, and its return', async () => {
    const { watch, cut, advance, logged } = watchOver(['a', 'b']);
    watch.tick();
    await advance(INTERVAL_MS);
    cut.add('b');
    await advance(INTERVAL_MS * 20);
    cut.delete('b');
    await advance(INTERVAL_MS * 2);
    expect(logged.map(({ msg, channels }) => [msg, channels])).toEqual([
      ['change notices not delivered on these channels: answers served uncached', ['b']],
      ['change notices delivered again: cached answers served', undefined],
    ]);
  });

  it('ignores probes of other processes on the same channel', async () => {
    const { watch, cut, advance } = watchOver(['a']);
    cut.add('a');
    watch.heard('a', `someone-else:${Date.now() + 10_000_000}`);
    await advance(INTERVAL_MS * 2);
    expect(watch.isServing).toBe(false);
  });

  it('stops serving at once when the feed reports a connection down', async () => {
    const { watch, advance } = watchOver(['a']);
    watch.tick();
    await advance(INTERVAL_MS);
    expect(watch.isServing).toBe(true);
    watch.down();
    expect(watch.isServing).toBe(false);
  });
});
