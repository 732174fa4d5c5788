import type { Command } from 'commander';
import { createCredential } from '../use-cases/admin/create-credential.js';
import { createProvider } from '../use-cases/admin/create-provider.js';
import { toCreateChainInput } from '../routes/admin/quest-chains/schema.js';
import { createChain } from '../use-cases/quest-chains/create-chain.js';
import { runCommand } from './context.js';

const HOUR_MS = 3600_000;
const DEMO_USER = 'demo-user-1';

/** A body for curl inside single quotes; none of our values contain one. */
const quoted = (value: unknown) => `'${JSON.stringify(value)}'`;

export function registerSeedDemoCommand(program: Command, json: () => boolean) {
  program
    .command('seed:demo')
    .description('create a demo platform, advertiser, credentials and an active three-task chain; print curl lines to try it')
    .option('--base-url <url>', 'where the API listens (default http://127.0.0.1:$PORT)')
    .action((options: { baseUrl?: string }) =>
      runCommand(json(), async ({ db, config, out }) => {
        const baseUrl = (options.baseUrl ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
        const platform = await createProvider({ db }, { type: 'platform', name: 'Demo Platform' });
        const advertiser = await createProvider({ db }, { type: 'advertiser', name: 'Demo Advertiser' });
        const platformCredential = await createCredential({ db }, { providerId: platform.id });
        const advertiserCredential = await createCredential({ db }, { providerId: advertiser.id });
        const now = Date.now();
        const chain = await createChain({ db }, toCreateChainInput({
          platform_id: platform.id,
          advertiser_id: advertiser.id,
          name: 'Welcome journey',
          description: 'Sign up, verify, make a first deposit of at least 100 USD.',
          start_date: new Date(now - HOUR_MS).toISOString(),
          end_date: new Date(now + 30 * 24 * HOUR_MS).toISOString(),
          status: 'active',
          allow_any_order: false,
          tasks: [
            { sequence_number: 1, name: 'Create your account', condition_event_type: 'registration', reward_type: 'points', reward_name: 'Welcome points', reward_value: 100 },
            { sequence_number: 2, name: 'Verify your identity', condition_event_type: 'kyc', reward_type: 'points', reward_name: 'Trust points', reward_value: 200 },
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
        }));

        // Event times a few seconds apart and inside the chain window, in task order.
        const at = (offsetS: number) => new Date(now + offsetS * 1000).toISOString();
        const auth = `-H 'content-type: application/json' -H 'X-API-Key: ${platformCredential.key}' -H 'X-API-Secret: ${platformCredential.secret}'`;
        // -w adds the newline the API's compact JSON lacks, so pasted lines print one answer per line.
        const post = (path: string, body: unknown) => `curl -sS -w '\\n' -X POST ${baseUrl}${path} ${auth} -d ${quoted(body)}`;
        const curl = [
          post('/v1/users/register', { platform_user_id: DEMO_USER }),
          post('/v1/events', { user_id: DEMO_USER, event_type: 'registration', timestamp: at(1) }),
          post('/v1/events', { user_id: DEMO_USER, event_type: 'kyc', timestamp: at(2) }),
          post('/v1/events', { user_id: DEMO_USER, event_type: 'transaction', timestamp: at(3), amount: 150, currency: 'USD' }),
          `curl -sS -w '\\n' ${baseUrl}/v1/quest-chains/active/${DEMO_USER} -H 'X-API-Key: ${platformCredential.key}' -H 'X-API-Secret: ${platformCredential.secret}'`,
        ];

        out.warn('demo secrets are printed below; use them on a development database only.');
        const seeded = {
          platform: { id: platform.id, key: platformCredential.key, secret: platformCredential.secret },
          advertiser: { id: advertiser.id, key: advertiserCredential.key, secret: advertiserCredential.secret },
          quest_chain_id: chain.chain.id,
          platform_user_id: DEMO_USER,
          curl,
        };
        out.result(seeded, () => [
          `platform    ${platform.id}  key ${platformCredential.key}  secret ${platformCredential.secret}`,
          `advertiser  ${advertiser.id}  key ${advertiserCredential.key}  secret ${advertiserCredential.secret}`,
          `chain       ${chain.chain.id}  "Welcome journey": registration -> kyc -> transaction (>= 100 USD), active for 30 days`,
          '',
          '# Register a user, send the three events, then read the chain (the worker must be running for progress):',
          ...curl,
        ]);
      }),
    );
}
