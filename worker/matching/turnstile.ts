/**
 * Hands out turns in the order they were asked for: `ticket()` is taken
 * synchronously (so the order is the callers' order, not the order their
 * later awaits happen to resume in). A ticket's `inTurn` runs a step once
 * every earlier ticket is released; a ticket is released when its step ends,
 * failed or not, or by `release()`, which its holder must call in a `finally`
 * in case the step never ran (its transaction failed to begin, say).
 */
export function createTurnstile() {
  let previous: Promise<void> = Promise.resolve();
  return {
    ticket(): Ticket {
      const before = previous;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      // The next turn waits for this one to be released AND for every earlier one.
      previous = Promise.all([before, released]).then(() => undefined);
      return {
        async inTurn<T>(step: () => Promise<T>): Promise<T> {
          await before;
          try {
            return await step();
          } finally {
            release();
          }
        },
        release: () => release(),
      };
    },
  };
}

export interface Ticket {
  inTurn<T>(step: () => Promise<T>): Promise<T>;
  /** Idempotent; lets the turns after this one go. */
  release(): void;
}
