import type { Send } from '../../e2e/support/world/event-source.js';
import { openLoop } from '../../e2e/support/world/open-loop.js';
import type { SampledHistory } from '../../e2e/support/world/world-check.js';
import type { SeededWorld } from '../../e2e/support/world/world-seed.js';
import type { ApiClient } from '../../shared/testing/api-client.js';
import { quantile } from '../../shared/testing/quantile.js';

const MAX_OUTSTANDING_READS = 256;

export interface ReadFigures {
  rate: number;
  p50Ok: number;
  p99Ok: number;
  p50NotModified: number;
  p99NotModified: number;
  /** Revalidations (If-None-Match sent) answered 304. */
  notModifiedShare: number;
  /** Reads answered 200 (a body: with no tag held, or a tag no longer current) and 304. */
  answered: { ok: number; notModified: number };
  failures: number;
}

export type Traffic = ReturnType<typeof createTraffic>;

/** Sends the producers' requests and the pollers' reads, recording what the model check and the figures need. */
export function createTraffic(client: ApiClient, seeded: SeededWorld, history: SampledHistory) {
  const etags = new Map<string, string>();
  let reads = { ok: [] as number[], notModified: [] as number[], revalidations: 0, failures: 0 };
  const traffic = {
    singleMs: [] as number[],
    rejected: 0,
    send(send: Send): { units: number; done: Promise<boolean> } {
      const headers = seeded.platforms[send.platformIndex]!.headers;
      const body = JSON.stringify(send.batched ? { events: send.events } : send.events[0]);
      const path = send.batched ? '/v1/events/batch' : '/v1/events';
      const done = client.call('POST', path, { headers, body }).then((answer) => {
        if (answer.status !== 200) throw new Error(`ingest answered ${answer.status}: ${answer.text.slice(0, 200)}`);
        if (!send.batched) traffic.singleMs.push(answer.ms);
        const data = answer.json.data;
        const results: { event_id?: string; status: string }[] = send.batched ? data.results : [data];
        results.forEach((result, i) => {
          if (result.event_id === undefined) traffic.rejected += 1;
          else history.record(send.events[i]!, result.event_id);
        });
        return true;
      });
      return { units: send.events.length, done };
    },
    resetReads() {
      reads = { ok: [], notModified: [], revalidations: 0, failures: 0 };
    },
    poll(rate: number, durationS: number, random: { int(min: number, max: number): number }) {
      return openLoop({
        ratePerS: rate,
        durationS,
        maxOutstanding: MAX_OUTSTANDING_READS,
        start: () => {
          const user = seeded.users[random.int(0, seeded.users.length - 1)]!;
          const tag = etags.get(user.platformUserId);
          const headers = { ...seeded.platforms[user.platformIndex]!.headers, ...(tag ? { 'if-none-match': tag } : {}) };
          if (tag) reads.revalidations += 1;
          const done = client.call('GET', `/v1/quest-chains/active/${user.platformUserId}`, { headers }).then((answer) => {
            if (answer.status === 200) {
              reads.ok.push(answer.ms);
              etags.set(user.platformUserId, String(answer.headers.get('etag')));
            } else if (answer.status === 304) reads.notModified.push(answer.ms);
            else reads.failures += 1;
          });
          return { units: 1, done };
        },
      });
    },
    /** Reads every user once at `rate`, keeping the tags, as pollers that have run a while hold them. */
    async warmPollers(rate: number) {
      if (rate <= 0) return;
      let next = 0;
      await openLoop({
        ratePerS: rate,
        durationS: seeded.users.length / rate,
        maxOutstanding: MAX_OUTSTANDING_READS,
        start: () => {
          const user = seeded.users[next++ % seeded.users.length]!;
          const done = client
            .call('GET', `/v1/quest-chains/active/${user.platformUserId}`, {
              headers: seeded.platforms[user.platformIndex]!.headers,
            })
            .then((answer) => {
              if (answer.status === 200) etags.set(user.platformUserId, String(answer.headers.get('etag')));
            });
          return { units: 1, done };
        },
      });
    },
    readFigures(rate: number): ReadFigures {
      return {
        rate,
        p50Ok: quantile(reads.ok, 0.5, 0),
        p99Ok: quantile(reads.ok, 0.99, 0),
        p50NotModified: quantile(reads.notModified, 0.5, 0),
        p99NotModified: quantile(reads.notModified, 0.99, 0),
        notModifiedShare: reads.revalidations === 0 ? 0 : reads.notModified.length / reads.revalidations,
        answered: { ok: reads.ok.length, notModified: reads.notModified.length },
        failures: reads.failures,
      };
    },
  };
  return traffic;
}
