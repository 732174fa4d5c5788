const TICK_MS = 2;

export interface OpenLoopResult {
  /** Units (events, reads) started. */
  started: number;
  /** Units not started because `maxOutstanding` calls were still open: the service did not keep up. */
  dropped: number;
  failed: number;
  seconds: number;
}

/**
 * Starts work at a fixed rate whatever the answers (open loop, as real
 * producers send: a slow answer does not slow the next send). Each `start()`
 * returns the units it carries (a batch of events counts its events) and a
 * promise of its call. Past `maxOutstanding` open calls the due work is
 * dropped and counted, so an overloaded service shows as a shortfall, not as
 * a quietly slower producer. It runs `durationS`, or until `signal` aborts
 * (a chaos run's load lasts as long as its faults).
 */
export async function openLoop(options: {
  ratePerS: number;
  durationS: number;
  maxOutstanding: number;
  start: (nowMs: number) => { units: number; done: Promise<unknown> };
  signal?: AbortSignal;
}): Promise<OpenLoopResult> {
  const { ratePerS, durationS, maxOutstanding } = options;
  const result: OpenLoopResult = { started: 0, dropped: 0, failed: 0, seconds: durationS };
  const calls = new Set<Promise<unknown>>();
  const began = performance.now();
  let due = 0;
  for (;;) {
    const elapsedS = (performance.now() - began) / 1000;
    if (elapsedS >= durationS || options.signal?.aborted) break;
    due = ratePerS * elapsedS - result.started - result.dropped;
    while (due > 0) {
      if (calls.size >= maxOutstanding) {
        // Counted as units of one: a dropped batch would have carried more, so this understates the shortfall.
        result.dropped += 1;
        due -= 1;
        continue;
      }
      const { units, done } = options.start(Date.now());
      const call = done.then(
        () => undefined,
        () => {
          result.failed += 1;
        },
      );
      calls.add(call);
      void call.finally(() => calls.delete(call));
      result.started += units;
      due -= units;
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(calls);
  result.seconds = (performance.now() - began) / 1000;
  return result;
}
