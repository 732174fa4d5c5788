import { describe, expect, it } from 'vitest';
import { inStock } from './draw-stock.js';

describe('inStock', () => {
  it.each([
    { stock: null, drawable: true },
    { stock: 1, drawable: true },
    { stock: 50, drawable: true },
    { stock: 0, drawable: false },
    { stock: -1, drawable: false },
  ])('stock $stock: drawable is $drawable', ({ stock, drawable }) => {
    expect(inStock({ stock })).toBe(drawable);
  });
});
