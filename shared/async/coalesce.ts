/**
 * Runs `run` at most once at a time; calls made while it runs are gathered
 * and run together next, each resolved with the outcome of the run that
 * carried its items. An idle caller runs at once (no timer, no added
 * latency); a busy one shares: under load the round trip of one run is the
 * window that fills the next. A run that throws resolves its callers false.
 */
export function coalesce<T>(run: (items: T[]) => Promise<boolean>): (items: readonly T[]) => Promise<boolean> {
  let gathered: { items: T[]; callers: ((ok: boolean) => void)[] } | null = null;
  let running = false;
  const next = () => {
    if (running || gathered === null) return;
    const { items, callers } = gathered;
    gathered = null;
    running = true;
    void run(items)
      .catch(() => false)
      .then((ok) => {
        running = false;
        for (const resolve of callers) resolve(ok);
        next();
      });
  };
  return (items) =>
    new Promise<boolean>((resolve) => {
      if (items.length === 0) return resolve(true);
      gathered ??= { items: [], callers: [] };
      gathered.items.push(...items);
      gathered.callers.push(resolve);
      next();
    });
}
