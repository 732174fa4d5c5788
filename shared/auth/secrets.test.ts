import { describe, expect, it, vi } from 'vitest';
import { generateSecret, hashSecret, verifySecret } from './secrets.js';

// Counts the constant-time comparisons verifySecret makes, calling the real one.
const comparisons = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return {
    ...original,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      comparisons.count += 1;
      return original.timingSafeEqual(a, b);
    },
  };
});

describe('verifySecret', () => {
  const secret = generateSecret();
  const stored = hashSecret(secret);

  it('accepts the secret of the stored hash and nothing else', () => {
    expect(verifySecret(secret, stored)).toBe(true);
    expect(verifySecret(`${secret}x`, stored)).toBe(false);
    expect(verifySecret(secret, null)).toBe(false);
    expect(verifySecret(secret, undefined)).toBe(false);
  });

  it('does the same comparison for an unknown key (no stored hash) as for a wrong secret', () => {
    comparisons.count = 0;
    verifySecret('sk_guess', stored);
    expect(comparisons.count).toBe(1);
    comparisons.count = 0;
    verifySecret('sk_guess', null);
    expect(comparisons.count).toBe(1);
  });
});
