import { describe, expect, it } from 'vitest';
import { chainBody } from '../api/testing/chains.js';
import { useTestService } from '../api/testing/test-service.js';
import { eventually } from '../shared/testing/eventually.js';
import { runCli } from './run-cli.test-helper.js';

// A change made through the CLI reaches a running API at once, through a change notice: the API's
// definitions cache keeps entries for a minute here, so only the notice can explain a fresh read.
const { database, api, platform, advertiser } = useTestService('cli_change_notices', {
  config: { CHAIN_CACHE_TTL_MS: '60000' },
});

const activeChainIds = async (platformUserId: string) => {
  const answer = await api.call('GET', `/v1/quest-chains/active/${platformUserId}`, { headers: platform.headers });
  expect(answer.status).toBe(200);
  return (answer.json.data.quest_chains as { quest_chain: { id: string } }[]).map((entry) => entry.quest_chain.id);
};

describe('change notices from the CLI', () => {
  it('a chain paused through the CLI leaves a running API read within a second', async () => {
    await eventually(async () => (api.deps.chainCache.answers.enabled ? true : undefined), {
      what: 'the API to follow change notices',
    });
    const registered = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: 'cli-reader' },
    });
    expect(registered.status).toBe(200);
    const created = await api.call('POST', '/admin/v1/quest-chains', {
      headers: api.adminHeaders,
      body: chainBody(platform.id, advertiser.id),
    });
    expect(created.status).toBe(200);
    const chainId = created.json.data.quest_chain.id as string;
    expect(await activeChainIds('cli-reader')).toEqual([chainId]);
    // Read twice: the second answer comes from the cache the notice must drop.
    expect(await activeChainIds('cli-reader')).toEqual([chainId]);

    const run = await runCli(['quest-chains', 'set-status', chainId, 'paused'], {
      DATABASE_URL: database.url,
      REDIS_URL: api.config.REDIS_URL,
      QUEUE_PREFIX: api.config.QUEUE_PREFIX,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const changedAt = Date.now();
    await eventually(async () => ((await activeChainIds('cli-reader')).length === 0 ? true : undefined), {
      what: 'the paused chain to leave the read',
      timeoutMs: 1000,
    });
    expect(Date.now() - changedAt).toBeLessThan(1000);
  });
});
