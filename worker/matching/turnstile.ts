/**
 * Hands out turns in the order they were asked for: `ticket()` is taken
 * synchronously (so the order is the callers' order, not the order their
 * later awaits happen to resume in), and `inTurn` runs a step once every
 * earlier ticket's step is over, failed or not.
 */
export function createTurnstile() {
  let previous: Promise<void> = Promise.resolve();
  return {
    ticket() {
      const before = previous;
      let done!: () => void;
      previous = new Promise<void>((resolve) => (done = resolve));
      return async function inTurn<T>(step: () => Promise<T>): Promise<T> {
        await before;
        try {
          return await step();
        } finally {
          done();
        }
      };
    },
  };
}

export type InTurn = ReturnType<ReturnType<typeof createTurnstile>['ticket']>;
