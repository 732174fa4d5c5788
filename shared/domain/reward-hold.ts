/** When a reward completed at `completedUs` may be claimed under a hold of `holdSeconds` (docs/reversals.md). */
export const claimableAfterHold = (completedUs: bigint, holdSeconds: number) => completedUs + BigInt(holdSeconds) * 1_000_000n;
