import { describe, expect, it } from 'vitest';
import { eventBatches, jobPayloads, MAX_EVENTS_PER_JOB, MAX_REQUEST_IDS_PER_JOB } from './contract.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const PROVIDER = uuid(999_999);

describe('request ids in match jobs', () => {
  it('carries the distinct request ids of each job’s own events, in order', () => {
    const events = Array.from({ length: MAX_EVENTS_PER_JOB + 2 }, (_, i) => ({
      eventId: uuid(i),
      providerId: PROVIDER,
      requestId: i < 3 ? 'req-a' : `req-${i}`,
    }));
    const [first, second] = eventBatches(events);
    expect(first!.requestIds).toEqual([
      'req-a',
      ...Array.from({ length: MAX_REQUEST_IDS_PER_JOB - 1 }, (_, i) => `req-${i + 3}`),
    ]);
    // The second job's events came from the last two requests only.
    expect(second!.requestIds).toEqual([`req-${MAX_EVENTS_PER_JOB}`, `req-${MAX_EVENTS_PER_JOB + 1}`]);
    for (const payload of [first, second]) expect(jobPayloads['match-events'].parse(payload)).toEqual(payload);
  });

  it('leaves the field out when no request stored the events (the reconciler)', () => {
    const [payload] = eventBatches([{ eventId: uuid(1), providerId: PROVIDER }]);
    expect(payload).toEqual({ eventIds: [uuid(1)], providerId: PROVIDER });
  });
});
