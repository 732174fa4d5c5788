/**
 * `promise`, or a rejection with `message` once `ms` have passed, whichever
 * comes first. The timer is cleared either way, so a settled call leaves
 * nothing behind to keep the process alive.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message = 'timed out'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
