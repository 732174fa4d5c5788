import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { providerIsLive } from './provider-mode.js';

/**
 * Deletes everything a test twin provider made (docs/test-mode.md,
 * `POST /v1/test/reset`), in one transaction the caller holds, children
 * before parents. Never called with a live provider's id (the route refuses
 * live credentials, and the statements below also require the provider to
 * be a twin). Answers how many rows of each kind went.
 */
export async function deleteTestModeData(tx: Executor, twinId: string): Promise<Record<string, number>> {
  const twin = sql`(select id from providers where id = ${twinId} and not (${providerIsLive()}))`;
  const users = sql`(select id from users where platform_id = ${twin})`;
  const counts: Record<string, number> = {};
  const run = async (name: string, statement: ReturnType<typeof sql>) => {
    const rows = await tx.execute(sql`${statement} returning 1`);
    counts[name] = (counts[name] ?? 0) + rows.length;
  };
  // The matcher holds a user's row lock while it writes their progress: wait for it, and keep it out until commit.
  await tx.execute(sql`select id from users where platform_id = ${twin} order by id for update`);
  // The points ledger refers to claims and spends: it goes first (§18).
  await run('point_entries', sql`delete from point_entries where user_id in ${users}`);
  await run('point_spends', sql`delete from point_spends where user_id in ${users}`);
  await run('point_balances', sql`delete from point_balances where user_id in ${users}`);
  await run('auto_claims', sql`delete from auto_claims where user_id in ${users}`);
  await run(
    'reward_draws',
    sql`delete from reward_draws where claim_id in (select id from reward_claims where user_id in ${users})`,
  );
  await run('reward_claims', sql`delete from reward_claims where user_id in ${users}`);
  // A platform's test leaderboards stay, like its chains; their standings start again.
  const boards = sql`(select id from leaderboards where platform_id = ${twin})`;
  await run('leaderboard_standings', sql`delete from leaderboard_standings where leaderboard_id in ${boards}`);
  await run('leaderboard_periods', sql`delete from leaderboard_periods where leaderboard_id in ${boards}`);
  await run('leaderboard_refreshes', sql`delete from leaderboard_refreshes where user_id in ${users}`);
  await run('chain_admissions', sql`delete from chain_admissions where user_id in ${users}`);
  await run('task_completions', sql`delete from task_completions where user_id in ${users}`);
  await run('chain_progress', sql`delete from chain_progress where user_id in ${users}`);
  await run('link_tokens', sql`delete from link_tokens where platform_id = ${twin} or advertiser_id = ${twin}`);
  await run('account_links', sql`delete from account_links where platform_id = ${twin} or advertiser_id = ${twin}`);
  await run('pending_events', sql`delete from pending_events where provider_id = ${twin}`);
  await run('events', sql`delete from events where provider_id = ${twin}`);
  await run('users', sql`delete from users where platform_id = ${twin}`);
  await run(
    'webhook_attempts',
    sql`delete from webhook_attempts where message_id in (select m.id from webhook_messages m join webhook_endpoints e on e.id = m.endpoint_id where e.provider_id = ${twin})`,
  );
  await run(
    'webhook_messages',
    sql`delete from webhook_messages where endpoint_id in (select id from webhook_endpoints where provider_id = ${twin})`,
  );
  await run('webhook_endpoints', sql`delete from webhook_endpoints where provider_id = ${twin}`);
  await run('backtests', sql`delete from backtests where platform_id = ${twin}`);
  // A platform's test chains stay (an operator made them); what its users took from them starts again.
  const chains = sql`(select id from quest_chains where platform_id = ${twin})`;
  await tx.execute(sql`update quest_chains set budget_spent = 0, admitted_users = 0 where id in ${chains}`);
  await tx.execute(sql`update quest_tasks set claims_count = 0 where chain_id in ${chains}`);
  await tx.execute(sql`update chain_rewards set claims_count = 0 where chain_id in ${chains}`);
  return counts;
}
