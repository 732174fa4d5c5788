import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('coalesce', () => {
  it('runs an idle call at once and gathers the calls made while a run is under way into one run', async () => {
    const runs: number[][] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const add = coalesce(async (items: number[]) => {
      runs.push(items);
      if (runs.length === 1) await blocked;
      return true;
    });
    const first = add([1]);
    await tick();
    expect(runs).toEqual([[1]]);
    const later = [add([2, 3]), add([4]), add([])];
    await tick();
    expect(runs).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...later])).toEqual([true, true, true, true]);
    expect(runs).toEqual([[1], [2, 3, 4]]);
  });

  it("answers each caller its own run's outcome; a run that throws answers false and the next still runs", async () => {
    let calls = 0;
    const add = coalesce(async () => {
      calls += 1;
      if (calls === 1) throw new Error('redis away');
      return calls === 2;
    });
    const failed = add(['a']);
    const gathered = add(['b']);
    expect(await failed).toBe(false);
    expect(await gathered).toBe(true);
  });
});
