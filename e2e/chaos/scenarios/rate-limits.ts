import { type ApiAnswer, httpClient } from '../../../shared/testing/api-client.js';
import { isErrorEnvelope, LOAD_CLIENT } from '../harness/answers.js';
import { driveEvents, newEvent, sendEvents } from '../harness/event-load.js';
import { countStatuses, noCrashes, type Scenario } from '../harness/scenario.js';

/** A per-credential ceiling this deployment sets low enough for a burst to pass it (the default is far above any benchmark). */
const CREDENTIAL_PER_MINUTE = 120;
const AUTH_FAILURES_PER_MINUTE = 100;
const ADMIN_FAILURES_PER_MINUTE = 20;

/** Whether a 429 carries what a client needs to back off: the envelope, Retry-After and the IETF RateLimit headers. */
function wellFormed429(answer: ApiAnswer): boolean {
  if (answer.status !== 429) return false;
  const retryAfter = Number(answer.headers.get('retry-after'));
  return (
    Number.isFinite(retryAfter) &&
    retryAfter >= 0 &&
    answer.headers.has('ratelimit-policy') &&
    answer.headers.has('ratelimit') &&
    isErrorEnvelope(answer.json)
  );
}

/**
 * Three floods at once, each past its limit, beside a well-behaved neighbour:
 * a burst on one credential (per-credential limit), bad keys from one address
 * (failed authentication per address), wrong admin tokens from another
 * (admin token per address). Each must turn into 429s with Retry-After,
 * RateLimit-Policy and RateLimit, only after the limit's allowance, and the
 * neighbour (another credential, another address) must not notice.
 */
export const rateLimitFlood: Scenario = {
  name: 'rate-limit flood',
  stack: () => ({
    platforms: 2,
    usersPerPlatform: 10,
    env: {
      RATE_LIMIT_CREDENTIAL_PER_MINUTE: String(CREDENTIAL_PER_MINUTE),
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE),
      RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE: String(ADMIN_FAILURES_PER_MINUTE),
    },
  }),
  async run(stack) {
    const [greedy, neighbour] = [stack.tenants[0]!, stack.tenants[1]!];
    // 1.5 calls a second, one event each: 90 a minute, under the ceiling however long the floods last
    // (the tarpit holds each blocked refusal for a second, so the floods take several seconds).
    const neighbourLoad = driveEvents(stack.client, stack.history, neighbour, stack.random, {
      ratePerSecond: 1.5,
      batchSize: 1,
      batchShare: 0,
    });
    const badKeys = httpClient(() => stack.api.url, { ...LOAD_CLIENT, localAddress: '127.0.0.3', maxSockets: 16 });
    const badAdmin = httpClient(() => stack.api.url, { ...LOAD_CLIENT, localAddress: '127.0.0.4', maxSockets: 8 });

    const burst = floodOf(300, 32, () => sendEvents(stack.client, stack.history, greedy, [newEvent(stack.random, greedy)]));
    const keys = floodOf(AUTH_FAILURES_PER_MINUTE + 100, 16, () =>
      badKeys.call('POST', '/v1/events', {
        headers: { 'x-api-key': `qk_bogus_${stack.random.int(0, 1e9)}`, 'x-api-secret': 'nope' },
        body: newEvent(stack.random, greedy),
      }),
    );
    const admin = floodOf(ADMIN_FAILURES_PER_MINUTE + 30, 8, () =>
      badAdmin.call('GET', '/admin/v1/providers', { headers: { authorization: 'Bearer wrong-admin-token-000000000' } }),
    );
    const [burstAnswers, keyAnswers, adminAnswers] = await Promise.all([burst, keys, admin]);
    await neighbourLoad.stop();
    badKeys.close();
    badAdmin.close();

    const all429 = [...burstAnswers, ...keyAnswers, ...adminAnswers].filter((answer) => answer.status === 429);
    const good429 = all429.filter(wellFormed429);
    const neighbourStatuses = neighbourLoad.samples.map((sample) => sample.status);
    const count = (answers: ApiAnswer[], status: number) => answers.filter((answer) => answer.status === status).length;
    return {
      recoveryMs: null,
      figure: {
        label: '429 answers with Retry-After, RateLimit-Policy and RateLimit',
        value: all429.length === 0 ? null : good429.length / all429.length,
        unit: '',
        target: { atLeast: 1 },
      },
      checks: [
        noCrashes(stack),
        {
          name: 'credential burst past its ceiling answered 429',
          ok: count(burstAnswers, 429) > 0,
          detail: countStatuses(burstAnswers.map((a) => a.status)),
        },
        {
          name: `bad keys: at most ${AUTH_FAILURES_PER_MINUTE} 401s from one address, then 429`,
          ok: count(keyAnswers, 401) <= AUTH_FAILURES_PER_MINUTE && count(keyAnswers, 429) > 0,
          detail: countStatuses(keyAnswers.map((a) => a.status)),
        },
        {
          name: `wrong admin token: at most ${ADMIN_FAILURES_PER_MINUTE} 401s from one address, then 429`,
          ok: count(adminAnswers, 401) <= ADMIN_FAILURES_PER_MINUTE && count(adminAnswers, 429) > 0,
          detail: countStatuses(adminAnswers.map((a) => a.status)),
        },
        {
          name: 'the neighbour (other credential, other address) got only 200s',
          ok: neighbourStatuses.every((s) => s === 200),
          detail: countStatuses(neighbourStatuses),
        },
      ],
      notes: [
        `burst: ${countStatuses(burstAnswers.map((a) => a.status))}; bad keys: ${countStatuses(keyAnswers.map((a) => a.status))}; admin: ${countStatuses(adminAnswers.map((a) => a.status))}`,
        ...(all429[0] && all429[0].status === 429
          ? [
              `a 429's headers: retry-after=${all429[0].headers.get('retry-after')}, ratelimit-policy=${all429[0].headers.get('ratelimit-policy')}, ratelimit=${all429[0].headers.get('ratelimit')}`,
            ]
          : []),
      ],
    };
  },
};

/** `total` calls of `call`, `concurrency` at a time; their answers in completion order. */
async function floodOf(total: number, concurrency: number, call: () => Promise<ApiAnswer>): Promise<ApiAnswer[]> {
  const answers: ApiAnswer[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < total) {
        started += 1;
        answers.push(await call());
      }
    }),
  );
  return answers;
}
