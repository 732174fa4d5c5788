/**
 * `npm run bench:backtest-memory [-- --events <n>] [--users <n>]`: seeds a
 * platform with 1,000,000 stored events (by default) over 20,000 users, runs a
 * backtest in the built API as its own process, samples that process's RSS
 * while it runs, and prints the time and the peak. Fails (exit 1) when the
 * peak reaches 300 MB or the backtest does not evaluate every user: §12 says
 * a backtest never holds a platform's events in memory at once.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { peakRssMb, rssMb } from '../e2e/harness/proc-stats.js';
import { startService } from '../e2e/harness/service.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { createTestDatabase, uniqueSuffix } from '../shared/testing/database.js';
import { createTestProvider } from '../shared/testing/fixtures.js';
import { serviceEnv } from '../shared/testing/service-env.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, users: { type: 'string', default: '20000' } },
});
const EVENTS = Number(values.events);
const USERS = Number(values.users);
const LIMIT_MB = 300;
const log = (message: string) => process.stderr.write(`[backtest-memory ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const database = await createTestDatabase('backtest_memory');
const outputDir = mkdtempSync(join(tmpdir(), 'qcr-backtest-memory-'));
let api: Awaited<ReturnType<typeof startService>> | undefined;
try {
  const platform = await createTestProvider(database.db, 'platform');
  const advertiser = await createTestProvider(database.db, 'advertiser');

  // Seeding is not what is measured: one server-side statement per table
  // (generate_series) writes them in seconds, where the event store's JSON
  // path would take minutes. Events fall in the last 20 days (partitions of
  // recent months exist), over four types, a third from the advertiser about
  // linked ids; no pending markers, as if the matcher had processed them.
  let t = Date.now();
  await database.db.execute(sql`
    insert into users (platform_id, platform_user_id, needs_evaluation)
    select ${platform.id}::uuid, 'user-' || i, false from generate_series(1, ${USERS}::int) i`);
  await database.db.execute(sql`
    insert into account_links (user_id, platform_id, advertiser_id, advertiser_user_id)
    select id, platform_id, ${advertiser.id}::uuid, 'adv-' || platform_user_id from users where platform_id = ${platform.id}::uuid and random() < 0.5`);
  // In slices, each in a transaction of its own without the sessions' statement time limit (a loaded machine is slow).
  for (let from = 0; from < EVENTS; from += 100_000) {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local statement_timeout = 0`);
      await tx.execute(sql`
      insert into events (provider_id, user_id, event_type, occurred_at, amount, currency)
      select case when i % 3 = 0 then ${advertiser.id}::uuid else ${platform.id}::uuid end,
             case when i % 3 = 0 then 'adv-user-' else 'user-' end || (1 + i % ${USERS}::int),
             (array['kyc', 'deposit', 'trade', 'page_view'])[1 + (i / ${USERS}::int) % 4],
             now() - interval '20 days' + (i::float8 / ${EVENTS}::int) * interval '19 days',
             (i::bigint * 7919) % 200, (array['EUR', 'usd', null])[1 + i % 3]
      from generate_series(${from}::int, ${Math.min(EVENTS, from + 100_000)}::int - 1) i`);
    });
  }
  await database.db.execute(sql`analyze`);
  log(
    `seeded ${USERS.toLocaleString('en')} users and ${EVENTS.toLocaleString('en')} events in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );

  api = await startService(
    'api',
    serviceEnv({ databaseUrl: database.url, queuePrefix: `backtest-memory-${uniqueSuffix()}`, env: { LOG_LEVEL: 'warn' } }),
    { outputDir },
  );
  const { url } = api;
  const rssBefore = rssMb(api.pid);
  const headers = { ...adminHeaders, 'content-type': 'application/json' };
  const draft = {
    platform_id: platform.id,
    advertiser_id: advertiser.id,
    name: 'Backtest memory',
    start_date: new Date(Date.now() - 30 * 86_400_000).toISOString(),
    end_date: new Date(Date.now() + 86_400_000).toISOString(),
    tasks: [
      { sequence_number: 1, name: 'KYC', condition_event_type: 'kyc', reward_type: 'points', reward_name: 'p', reward_value: 10 },
      {
        sequence_number: 2,
        name: 'Deposit',
        condition_event_type: 'deposit',
        condition_min_amount: 50,
        condition_currency: 'EUR',
        reward_type: 'points',
        reward_name: 'p',
        reward_value: 20,
      },
      {
        sequence_number: 3,
        name: 'Trade',
        condition_event_type: 'trade',
        reward_type: 'points',
        reward_name: 'p',
        reward_value: 30,
      },
    ],
    chain_reward: { type: 'box', name: 'Box', value: 5 },
  };
  t = Date.now();
  const started = await fetch(`${url}/admin/v1/quest-chains/backtest`, { method: 'POST', headers, body: JSON.stringify(draft) });
  const { data: start } = (await started.json()) as { data: { backtest_id: string } };
  if (started.status !== 202) throw new Error(`backtest refused: ${started.status} ${JSON.stringify(start)}`);
  let peakSampled = 0;
  let answer: {
    status: string;
    progress: { users_done: number; users_total: number };
    result: { users_evaluated: number; users_completed: number } | null;
    error: string | null;
  };
  for (;;) {
    peakSampled = Math.max(peakSampled, rssMb(api.pid));
    answer = (
      (await (await fetch(`${url}/admin/v1/backtests/${start.backtest_id}`, { headers })).json()) as { data: typeof answer }
    ).data;
    if (answer.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (Date.now() - t) / 1000;
  // VmHWM: the kernel's own high-water mark, so a peak between two samples is not missed.
  const peak = peakRssMb(api.pid);
  const summary = {
    events: EVENTS,
    users: USERS,
    status: answer.status,
    seconds: Number(seconds.toFixed(1)),
    eventsPerSecond: Math.round(EVENTS / seconds),
    rssBeforeMb: rssBefore,
    peakSampledMb: peakSampled,
    peakRssMb: peak,
    limitMb: LIMIT_MB,
    usersEvaluated: answer.result?.users_evaluated ?? null,
    usersCompleted: answer.result?.users_completed ?? null,
    error: answer.error,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  const ok = answer.status === 'completed' && answer.result?.users_evaluated === USERS && peak < LIMIT_MB;
  log(ok ? `passed: ${seconds.toFixed(1)} s, peak RSS ${peak} MB (< ${LIMIT_MB} MB)` : `FAILED (see ${outputDir}/api.log)`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await api?.stop();
  await database.drop();
}
