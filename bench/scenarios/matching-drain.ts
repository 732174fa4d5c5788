import { eq } from 'drizzle-orm';
import { pendingEvents, users } from '../../shared/db/schema/index.js';
import type { Scenario } from '../harness/context.js';

const MATCHING_DRAIN = 'matching drain, one worker';

/**
 * One worker, started only now, drains everything the ingest scenarios left
 * pending (rows of pending_events, plus users awaiting a re-evaluation); each
 * event is matched against 5 active chains of 5 tasks. The worker is stopped
 * afterwards so later figures are the API's alone.
 */
export const matchingDrain: Scenario = {
  name: 'matching-drain',
  async run(ctx) {
    const { db } = ctx.database;
    const left = async () => {
      const [events, usersToEvaluate] = await Promise.all([
        db.$count(pendingEvents),
        db.$count(users, eq(users.needsEvaluation, true)),
      ]);
      return events + usersToEvaluate;
    };
    const pending = await left();
    const started = performance.now();
    const worker = await ctx.startWorker();
    try {
      const deadline = Date.now() + (ctx.options.quick ? 20_000 : 15 * 60_000);
      let remaining = pending;
      while (remaining > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        remaining = await left();
      }
      const seconds = (performance.now() - started) / 1000;
      const done = pending - remaining;
      ctx.results.add({
        figure: MATCHING_DRAIN,
        value: done / seconds,
        unit: 'events/s',
        note: `${done} of ${pending} pending items in ${seconds.toFixed(1)} s${remaining > 0 ? ' (stopped at the time limit)' : ''}`,
      });
    } finally {
      await worker.stop();
    }
  },
};
