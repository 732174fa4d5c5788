import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../shared/db/project-root.js';
import type { ServiceUserId } from '../../../shared/domain/ids.js';
import { createTestProvider, type TestProvider } from '../../../shared/testing/fixtures.js';
import { storeCompletion } from '../../../shared/testing/progress.js';
import { chainBody, createChainOverApi } from '../../testing/chains.js';
import { useTestService } from '../../testing/test-service.js';

// Mystery boxes over HTTP (docs/mystery-boxes.md): prize tables in the admin
// API, odds and the seed's hash in GET active, the prize in the claim's
// answer, the draw's audit route, seed rotation, restocking, and the
// verification script in docs/ run on a real answer.

const { database, api, platform, advertiser } = useTestService('mystery_box_http');
let otherPlatform: TestProvider;
beforeAll(async () => {
  otherPlatform = await createTestProvider(database.db, 'platform');
});

const PRIZES = [
  { prize_id: 'gold', name: '50 EUR voucher', value: 50, weight: 1, stock: 1 },
  { prize_id: 'silver', name: '5 EUR voucher', value: 5, weight: 3 },
];
const boxChain = () =>
  createChainOverApi(api, platform.id, advertiser.id, {
    tasks: [{ event: 'open-box' }],
    reward: { type: 'mystery_box', name: 'Box', value: 5, prizes: PRIZES },
  });

/** A registered user who completed the chain's one task (as the worker stores it). */
async function completer(chain: { id: string; taskIds: string[] }) {
  const platformUserId = `box-${randomUUID()}`;
  const registered = await api.call('POST', '/v1/users/register', {
    headers: platform.headers,
    body: { platform_user_id: platformUserId },
  });
  const userId = registered.json.data.user_id as ServiceUserId;
  await storeCompletion(database.db, {
    userId,
    providerId: platform.id,
    platformUserId,
    taskId: chain.taskIds[0]!,
    chainId: chain.id,
    at: new Date().toISOString(),
  });
  return platformUserId;
}

const claim = (platformUserId: string, chainId: string) =>
  api.call('POST', '/v1/rewards/claim', {
    headers: platform.headers,
    body: { platform_user_id: platformUserId, quest_chain_id: chainId },
  });
const draw = (claimId: string, caller: TestProvider = platform) =>
  api.call('GET', `/v1/rewards/draws/${claimId}`, { headers: caller.headers });
const adminRead = async (chainId: string) =>
  (await api.call('GET', `/admin/v1/quest-chains/${chainId}`, { headers: api.adminHeaders })).json.data;

const verify = promisify(execFile);
/** Runs docs/verify-draw.mjs on a draw's JSON; answers its exit code and output. */
async function runVerifier(json: unknown, ...args: string[]) {
  const child = verify(process.execPath, ['docs/verify-draw.mjs', ...args], { cwd: projectRoot() });
  child.child.stdin!.end(JSON.stringify(json));
  return child.then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

describe('mystery boxes over HTTP', () => {
  it('publishes the odds and the seed hash, draws on claim, and the draw verifies once the seed is revealed', async () => {
    const chain = await boxChain();
    const stored = await adminRead(chain.id);
    expect(stored.chain_reward.prizes).toEqual([
      { prize_id: 'gold', name: '50 EUR voucher', value: 50, weight: 1, odds: 0.25, stock: 1 },
      { prize_id: 'silver', name: '5 EUR voucher', value: 5, weight: 3, odds: 0.75, stock: null },
    ]);
    const seedHash = stored.chain_reward.draw_seed_hash as string;
    expect(seedHash).toMatch(/^[0-9a-f]{64}$/);

    const user = await completer(chain);
    const active = await api.call('GET', `/v1/quest-chains/active/${user}`, { headers: platform.headers });
    const reward = active.json.data.quest_chains.find(
      (c: { quest_chain: { id: string } }) => c.quest_chain.id === chain.id,
    ).chain_reward;
    expect(reward).toMatchObject({ draw_seed_hash: seedHash, claimable: true });
    expect(reward.prizes).toEqual([
      { prize_id: 'gold', name: '50 EUR voucher', value: 50, weight: 1, odds: 0.25, in_stock: true },
      { prize_id: 'silver', name: '5 EUR voucher', value: 5, weight: 3, odds: 0.75, in_stock: true },
    ]);

    const claimed = await claim(user, chain.id);
    expect(claimed.status).toBe(200);
    const { claim_id: claimId, prize } = claimed.json.data;
    expect(['gold', 'silver']).toContain(prize.prize_id);

    const hidden = await draw(claimId);
    expect(hidden.status).toBe(200);
    expect(hidden.json.data).toMatchObject({
      claim_id: claimId,
      seed_hash: seedHash,
      server_seed: null,
      prize_id: prize.prize_id,
      total_weight: 4,
    });
    const partial = await runVerifier(hidden.json, '--published-hash', seedHash);
    expect(partial.code).toBe(0);
    expect(partial.stdout).toContain('not revealed yet');

    const rotated = await api.call('POST', `/admin/v1/mystery-boxes/${chain.id}/rotate-seed`, { headers: api.adminHeaders });
    expect(rotated.status).toBe(200);
    expect(rotated.json.data.revealed.seed_hash).toBe(seedHash);
    expect((await adminRead(chain.id)).chain_reward.draw_seed_hash).toBe(rotated.json.data.draw_seed_hash);

    const revealed = await draw(claimId);
    expect(revealed.json.data.server_seed).toBe(rotated.json.data.revealed.server_seed);
    const full = await runVerifier(revealed.json, '--published-hash', seedHash);
    expect(full).toMatchObject({ code: 0 });
    expect(full.stdout).toContain(`verified: claim ${claimId} drew ${prize.prize_id}`);
    // The script is a check, not an echo: a prize other than the drawn one fails it.
    const other = prize.prize_id === 'gold' ? 'silver' : 'gold';
    const tampered = await runVerifier({ ...revealed.json.data, prize_id: other });
    expect(tampered.code).toBe(1);
  });

  it('answers 409 out_of_stock when every prize is gone, and claims again once restocked', async () => {
    const chain = await createChainOverApi(api, platform.id, advertiser.id, {
      tasks: [{ event: 'open-small-box' }],
      reward: { type: 'mystery_box', name: 'Small box', prizes: [{ prize_id: 'only', name: 'The one', weight: 1, stock: 1 }] },
    });
    const [first, second] = [await completer(chain), await completer(chain)];
    expect((await claim(first, chain.id)).json.data.prize.prize_id).toBe('only');
    const refused = await claim(second, chain.id);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ success: false, code: 'out_of_stock', param: 'quest_chain_id' });
    expect((await adminRead(chain.id)).chain_reward.prizes[0]).toMatchObject({ stock: 0, odds: 0 });

    const restock = (prizeId: string, body: unknown) =>
      api.call('PATCH', `/admin/v1/mystery-boxes/${chain.id}/prizes/${prizeId}`, { headers: api.adminHeaders, body });
    expect((await restock('nope', { stock: 1 })).status).toBe(404);
    expect((await restock('only', { stock: -1 })).status).toBe(400);
    const restocked = await restock('only', { stock: 2 });
    expect(restocked.status).toBe(200);
    expect(restocked.json.data.chain_reward.prizes[0]).toMatchObject({ stock: 2, odds: 1 });
    expect((await claim(second, chain.id)).json.data.prize.prize_id).toBe('only');
  });

  it("keeps a draw to its claim's platform, and answers 404 / 400 for what is not a draw", async () => {
    const chain = await boxChain();
    const user = await completer(chain);
    const { claim_id: claimId } = (await claim(user, chain.id)).json.data;
    expect((await draw(claimId, otherPlatform)).status).toBe(404);
    expect((await draw(randomUUID())).json).toMatchObject({ success: false, code: 'not_found' });
    expect((await draw('not-a-uuid')).status).toBe(400);
    const advertiserCaller = await api.call('GET', `/v1/rewards/draws/${claimId}`, { headers: advertiser.headers });
    expect(advertiserCaller.status).toBe(403);
  });

  it('refuses a prize table that is not a mystery box, names a prize twice, or weighs nothing', async () => {
    const body = (prizes: unknown, type = 'mystery_box') => ({
      ...chainBody(platform.id, advertiser.id, { tasks: [{ event: 'x' }], reward: false }),
      chain_reward: { type, name: 'Box', prizes },
    });
    const create = (b: unknown) => api.call('POST', '/admin/v1/quest-chains', { headers: api.adminHeaders, body: b });
    const cases: [unknown, string][] = [
      [body([{ prize_id: 'a', name: 'A', weight: 1 }], 'points'), 'chain_reward.type'],
      [
        body([
          { prize_id: 'a', name: 'A', weight: 1 },
          { prize_id: 'a', name: 'B', weight: 2 },
        ]),
        'chain_reward.prizes.1.prize_id',
      ],
      [body([{ prize_id: 'a', name: 'A', weight: 0 }]), 'chain_reward.prizes.0.weight'],
      [body([]), 'chain_reward.prizes'],
    ];
    for (const [invalid, param] of cases) {
      const answer = await create(invalid);
      expect([answer.status, answer.json.param]).toEqual([400, param]);
    }
    const plain = await createChainOverApi(api, platform.id, advertiser.id, { tasks: [{ event: 'y' }] });
    const rotatePlain = await api.call('POST', `/admin/v1/mystery-boxes/${plain.id}/rotate-seed`, { headers: api.adminHeaders });
    expect([rotatePlain.status, rotatePlain.json.code]).toEqual([409, 'not_a_mystery_box']);
  });
});
