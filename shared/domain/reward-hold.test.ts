import { describe, expect, it } from 'vitest';
import { claimableAfterHold } from './reward-hold.js';

describe('claimableAfterHold', () => {
  it.each([
    { completedUs: 1_000n, holdSeconds: 0, claimableUs: 1_000n },
    { completedUs: 1_000n, holdSeconds: 1, claimableUs: 1_001_000n },
    { completedUs: 1_700_000_000_000_000n, holdSeconds: 86_400, claimableUs: 1_700_086_400_000_000n },
  ])('completed at $completedUs, held $holdSeconds s: claimable at $claimableUs', ({ completedUs, holdSeconds, claimableUs }) => {
    expect(claimableAfterHold(completedUs, holdSeconds)).toBe(claimableUs);
  });
});
