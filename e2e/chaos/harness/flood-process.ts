/**
 * A bad-key flood in a process of its own (`node --import tsx
 * e2e/chaos/harness/flood-process.ts <json options>`), so the attacker's
 * work does not share the event loop of the suite's good-traffic client and
 * slow it down (which would pass for the API's doing). Prints `flooding`
 * once it sends, sends until SIGTERM, then prints its answers' statuses as
 * one JSON line.
 */
import { httpClient } from '../../../shared/testing/api-client.js';
import { LOAD_CLIENT } from './answers.js';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  connections: number;
  localAddress: string;
  knownKey: string;
};
const client = httpClient(options.url, { ...LOAD_CLIENT, localAddress: options.localAddress, maxSockets: options.connections });
const statuses: Record<string, number> = {};
let flooding = true;
let lane = 0;
const body = { user_id: 'x', event_type: 'x', timestamp: '2026-01-01T00:00:00Z' };

const lanes = Array.from({ length: options.connections }, async () => {
  const mine = lane++;
  let n = 0;
  while (flooding) {
    // Half unknown keys (the cheap refusal), half a known key with a wrong secret (the expensive verification).
    const key = mine % 2 === 0 ? `qk_bogus_${mine}_${n++}` : options.knownKey;
    const answer = await client.call('POST', '/v1/events', {
      headers: { 'x-api-key': key, 'x-api-secret': `wrong-${mine}-${n}` },
      body,
    });
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  }
});

process.stdout.write('flooding\n');
process.on('SIGTERM', () => {
  flooding = false;
  void Promise.all(lanes).then(() => {
    client.close();
    process.stdout.write(`${JSON.stringify(statuses)}\n`);
    process.exit(0);
  });
});
