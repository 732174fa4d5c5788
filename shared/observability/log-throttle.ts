/**
 * At most one log line per `intervalMs` for a repeating failure: the first
 * occurrence is written at once, later ones within the interval are counted
 * and the count rides on the next line written (`suppressed`). An outage of
 * Redis or a storm of MOVED replies then costs a line every few seconds, not
 * one per failed command.
 */
export function logThrottle(intervalMs: number, now: () => number = Date.now) {
  let lastAt = -Infinity;
  let suppressed = 0;
  return {
    /** Calls `write` with the occurrences left out since the last line, or counts this one and returns false. */
    run(write: (suppressed: number) => void): boolean {
      const at = now();
      if (at - lastAt < intervalMs) {
        suppressed += 1;
        return false;
      }
      lastAt = at;
      const left = suppressed;
      suppressed = 0;
      write(left);
      return true;
    },
    /** Occurrences counted but not yet written. */
    get pending() {
      return suppressed;
    },
  };
}

export type LogThrottle = ReturnType<typeof logThrottle>;
