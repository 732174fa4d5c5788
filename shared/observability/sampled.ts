import { withTimeout } from '../async/with-timeout.js';

/**
 * A reading from outside the process (Postgres, Redis) for a gauge, taken at
 * most once per `maxAgeMs`: scrapes in between get the last reading, and
 * concurrent scrapes share one read, so neither a short scrape interval nor
 * several scrapers can turn a count into load. A read that fails or takes
 * longer than `timeoutMs` gives undefined (the gauge is then left out: a
 * missing series is honest, a stale number is not), and is not retried before
 * `maxAgeMs` either, so a database in trouble is not asked again per scrape.
 */
export function sampled<T>(
  read: () => Promise<T>,
  options: { maxAgeMs: number; timeoutMs: number },
): () => Promise<T | undefined> {
  let value: T | undefined;
  let takenAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<T | undefined> | null = null;

  const take = (): Promise<T | undefined> => withTimeout(read(), options.timeoutMs, 'sample timed out').catch(() => undefined);

  return () => {
    if (performance.now() - takenAt < options.maxAgeMs) return Promise.resolve(value);
    reading ??= take().then((result) => {
      value = result;
      takenAt = performance.now();
      reading = null;
      return result;
    });
    return reading;
  };
}
