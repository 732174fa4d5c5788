import { adminHeaders } from '../../shared/testing/admin-token.js';
import type { Stack } from '../harness/stack.js';

/** A chain of one task, done by one `play` event, open from 2020 to 2099: the smallest change a read can show. */
export async function createPlayChain(stack: Pick<Stack, 'call'>, platformId: string, advertiserId: string): Promise<string> {
  const chain = await stack.call('POST', '/admin/v1/quest-chains', {
    headers: adminHeaders,
    body: {
      platform_id: platformId,
      advertiser_id: advertiserId,
      name: 'one step',
      start_date: '2020-01-01T00:00:00Z',
      end_date: '2099-01-01T00:00:00Z',
      tasks: [
        {
          sequence_number: 1,
          name: 'Play',
          condition_event_type: 'play',
          reward_type: 'points',
          reward_name: 'p',
          reward_value: 1,
        },
      ],
    },
  });
  if (chain.status !== 200) throw new Error(`chain create answered ${chain.status}: ${JSON.stringify(chain.json)}`);
  return chain.json.data.quest_chain.id;
}
