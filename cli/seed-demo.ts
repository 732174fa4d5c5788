import type { Command } from 'commander';
import { toCreateChainInput } from '../api/routes/admin/quest-chains/create-schema.js';
import { createCredential } from '../core/admin/credentials.js';
import { createProvider } from '../core/admin/providers.js';
import { createChain } from '../core/quest-chains/create-chain.js';
import { loadLiveChains } from '../shared/db/chain-store.js';
import type { Database } from '../shared/db/client.js';
import { findActiveProviderByName, type Provider } from '../shared/db/provider-store.js';
import type { ProviderType } from '../shared/domain/permissions.js';
import type { ChangeNotices } from '../shared/live/change-notices.js';
import { loadLiveTokenSigner } from '../shared/live/token.js';
import { runCommand } from './context.js';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
const PLATFORM_NAME = 'Demo Platform';
const ADVERTISER_NAME = 'Demo Advertiser';
const CHAIN_NAME = 'Welcome journey';

/** A body for curl inside single quotes; none of our values contain one. */
const quoted = (value: unknown) => `'${JSON.stringify(value)}'`;

/** The demo's provider of this type, reused when an earlier run made it (found by name). */
async function demoProvider(db: Database, type: ProviderType, name: string): Promise<{ provider: Provider; reused: boolean }> {
  const existing = await findActiveProviderByName(db, type, name);
  return existing
    ? { provider: existing, reused: true }
    : { provider: await createProvider({ db }, { type, name }), reused: false };
}

/** The demo chain, reused while it is active and has at least a day left; otherwise a new one for 30 days. */
async function demoChain(
  { db, changes }: { db: Database; changes: ChangeNotices },
  platformId: string,
  advertiserId: string,
  now: number,
): Promise<{ id: string; reused: boolean }> {
  const nowUs = BigInt(now) * 1000n;
  const live = await loadLiveChains(db, platformId);
  const found = live.find(
    ({ chain }) =>
      chain.name === CHAIN_NAME &&
      chain.advertiserId === advertiserId &&
      chain.startDate <= nowUs &&
      chain.endDate > nowUs + BigInt(DAY_MS) * 1000n,
  );
  if (found) return { id: found.chain.id, reused: true };
  const created = await createChain(
    { db, changes },
    toCreateChainInput({
      platform_id: platformId,
      advertiser_id: advertiserId,
      name: CHAIN_NAME,
      description: 'Sign up, verify, make a first deposit of at least 100 USD.',
      start_date: new Date(now - HOUR_MS).toISOString(),
      end_date: new Date(now + 30 * DAY_MS).toISOString(),
      status: 'active',
      allow_any_order: false,
      tasks: [
        {
          sequence_number: 1,
          name: 'Create your account',
          condition_event_type: 'registration',
          reward_type: 'points',
          reward_name: 'Welcome points',
          reward_value: 100,
        },
        {
          sequence_number: 2,
          name: 'Verify your identity',
          condition_event_type: 'kyc',
          reward_type: 'points',
          reward_name: 'Trust points',
          reward_value: 200,
        },
        {
          sequence_number: 3,
          name: 'First deposit of 100 USD',
          condition_event_type: 'transaction',
          condition_min_amount: 100,
          condition_currency: 'USD',
          reward_type: 'cashback',
          reward_name: 'Deposit cashback',
          reward_value: 10,
        },
      ],
      chain_reward: { type: 'mystery_box', name: 'Welcome mystery box', value: 50 },
    }),
  );
  return { id: created.chain.id, reused: false };
}

/**
 * Idempotent: a second run reuses the demo platform, advertiser and chain (by
 * name). Secrets are stored hashed and cannot be shown again, so every run
 * makes a fresh credential for each provider, and a fresh demo user, so the
 * printed walk-through starts at 0 %.
 */
export function registerSeedDemoCommand(program: Command, json: () => boolean) {
  program
    .command('seed:demo')
    .description(
      'create (or reuse) a demo platform, advertiser and active three-task chain, new credentials, and print curl lines to try it',
    )
    .option('--base-url <url>', 'where the API listens (default http://127.0.0.1:$PORT)')
    .action((options: { baseUrl?: string }) =>
      runCommand(json(), async ({ db, config, changes, out }) => {
        const baseUrl = (options.baseUrl ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
        const now = Date.now();
        const platform = await demoProvider(db, 'platform', PLATFORM_NAME);
        const advertiser = await demoProvider(db, 'advertiser', ADVERTISER_NAME);
        const platformCredential = await createCredential({ db }, { providerId: platform.provider.id });
        const advertiserCredential = await createCredential({ db }, { providerId: advertiser.provider.id });
        const chain = await demoChain({ db, changes }, platform.provider.id, advertiser.provider.id, now);
        const user = `demo-user-${now.toString(36)}`;

        // A minute apart in the recent past, in task order: a client reports what already happened.
        const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
        const keys = `-H 'X-API-Key: ${platformCredential.key}' -H 'X-API-Secret: ${platformCredential.secret}'`;
        // -w adds the newline the API's compact JSON lacks, so pasted lines print one answer per line.
        const post = (path: string, body: unknown) =>
          `curl -sS -w '\\n' -X POST ${baseUrl}${path} -H 'content-type: application/json' ${keys} -d ${quoted(body)}`;
        const signer = await loadLiveTokenSigner(db, config.LIVE_TOKEN_SECRET);
        const liveUrl = `${baseUrl}/v1/live?token=${signer.issue({ platformId: platform.provider.id, platformUserId: user, livemode: platformCredential.mode === 'live' }, now)}`;
        const curl = [
          post('/v1/users/register', { platform_user_id: user }),
          post('/v1/events', { user_id: user, event_type: 'registration', timestamp: at(3) }),
          post('/v1/events', { user_id: user, event_type: 'kyc', timestamp: at(2) }),
          post('/v1/events', { user_id: user, event_type: 'transaction', timestamp: at(1), amount: 150, currency: 'USD' }),
          `curl -sS -w '\\n' ${baseUrl}/v1/quest-chains/active/${user} ${keys}`,
        ];
        const claim = post('/v1/rewards/claim', { platform_user_id: user, quest_chain_id: chain.id });
        const live = `curl -sS -N '${liveUrl}'`;

        out.warn('demo secrets are printed below; use them on a development database only.');
        const seeded = {
          platform: {
            id: platform.provider.id,
            reused: platform.reused,
            key: platformCredential.key,
            secret: platformCredential.secret,
          },
          advertiser: {
            id: advertiser.provider.id,
            reused: advertiser.reused,
            key: advertiserCredential.key,
            secret: advertiserCredential.secret,
          },
          quest_chain_id: chain.id,
          quest_chain_reused: chain.reused,
          platform_user_id: user,
          curl,
          claim,
          live_url: liveUrl,
          live,
        };
        const made = (reused: boolean) => (reused ? 'reused ' : 'created');
        out.result(seeded, () => [
          `platform    ${made(platform.reused)} ${platform.provider.id}  new key ${platformCredential.key}  secret ${platformCredential.secret}`,
          `advertiser  ${made(advertiser.reused)} ${advertiser.provider.id}  new key ${advertiserCredential.key}  secret ${advertiserCredential.secret}`,
          `chain       ${made(chain.reused)} ${chain.id}  "${CHAIN_NAME}": registration -> kyc -> transaction (>= 100 USD), mystery box at the end`,
          '',
          `# In a second terminal, watch ${user}'s progress live (Server-Sent Events; the token is valid for an hour):`,
          live,
          '',
          '# Register the user, send the three events, then read the chain (the worker must be running for progress):',
          ...curl,
          '',
          '# Once the chain shows 3/3, claim its reward:',
          claim,
        ]);
      }),
    );
}
