import { describe, expect, it } from 'vitest';
import { parseDeployments, searchSustained, startingRate } from './search.js';

const GRID = [4_000, 8_000, 12_000, 16_000, 20_000, 24_000];

/** A search against a service that sustains up to `capacity`, recording the rates it was asked for. */
async function search(capacity: number, start: number, maxSteps = 10, budgetSteps = Number.POSITIVE_INFINITY) {
  const asked: number[] = [];
  const result = await searchSustained({
    grid: GRID,
    start,
    maxSteps,
    canStep: () => asked.length < budgetSteps,
    measure: async (rate) => {
      asked.push(rate);
      return rate;
    },
    sustained: (rate) => rate <= capacity,
  });
  return { asked, ...result };
}

describe('searchSustained', () => {
  it('steps up from the start until a rate falls behind', async () => {
    expect(await search(17_000, 12_000)).toMatchObject({
      asked: [12_000, 16_000, 20_000],
      best: 16_000,
      firstBehind: 20_000,
      bracketed: true,
    });
  });

  it('steps down until a rate is sustained', async () => {
    expect(await search(9_000, 20_000)).toMatchObject({
      asked: [20_000, 16_000, 12_000, 8_000],
      best: 8_000,
      firstBehind: 12_000,
      bracketed: true,
    });
  });

  it('starts at the highest grid rate at or below the start, and stops at either end of the grid', async () => {
    expect(await search(100_000, 21_000)).toMatchObject({ asked: [20_000, 24_000], best: 24_000, bracketed: true });
    expect(await search(1_000, 1_000)).toMatchObject({ asked: [4_000], best: null, firstBehind: 4_000, bracketed: true });
  });

  it('stops at maxSteps or when there is no time for another step, unbracketed', async () => {
    expect(await search(24_000, 4_000, 2)).toMatchObject({ asked: [4_000, 8_000], best: 8_000, bracketed: false });
    expect(await search(24_000, 4_000, 10, 1)).toMatchObject({ asked: [4_000], bracketed: false });
    expect(await search(24_000, 4_000, 10, 0)).toMatchObject({ asked: [], best: null, bracketed: false });
  });
});

describe('startingRate', () => {
  const eightByTwo = { deployment: { workers: 8, apis: 2 }, best: 20_000 };
  it('scales the closest measured deployment of the same API count by the square root of the worker ratio', () => {
    expect(startingRate({ workers: 2, apis: 2 }, [eightByTwo], 12_000, 4_000)).toBe(10_000);
    expect(startingRate({ workers: 2, apis: 1 }, [eightByTwo], 12_000, 4_000)).toBe(10_000);
    expect(
      startingRate({ workers: 2, apis: 2 }, [eightByTwo, { deployment: { workers: 1, apis: 2 }, best: 8_000 }], 1, 1),
    ).toBeCloseTo(8_000 * Math.SQRT2);
  });

  it('falls back when nothing was measured, and starts at the bottom after a deployment that sustained nothing', () => {
    expect(startingRate({ workers: 8, apis: 2 }, [], 20_000, 4_000)).toBe(20_000);
    expect(startingRate({ workers: 1, apis: 2 }, [{ deployment: { workers: 2, apis: 2 }, best: null }], 20_000, 4_000)).toBe(
      4_000,
    );
  });
});

describe('parseDeployments', () => {
  it('reads <workers>w<apis>a in order and refuses anything else', () => {
    expect(parseDeployments('8w2a,1w1a')).toEqual([
      { workers: 8, apis: 2 },
      { workers: 1, apis: 1 },
    ]);
    expect(() => parseDeployments('8x2')).toThrow(/not <workers>w<apis>a/);
    expect(() => parseDeployments('0w1a')).toThrow(/not <workers>w<apis>a/);
    expect(() => parseDeployments('')).toThrow(/none given/);
  });
});
