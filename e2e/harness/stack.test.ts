import { afterAll, describe, expect, it } from 'vitest';
import { processTree } from './proc-stats.js';
import { type Stack, startStack } from './stack.js';

let stack: Stack | undefined;
afterAll(() => stack?.stop());

// The bench measures one world under several deployments: the launcher behind one port, then other counts.
describe('startStack with apiProcesses, and redeploy', () => {
  it('runs the API launcher with its processes, then another count of each on the same database', async () => {
    stack = await startStack('stack_redeploy', { apiProcesses: 2, workerCount: 1 });
    const launcher = stack.api;
    // The launcher and the two processes it forked; each answers on the one port.
    expect(processTree(launcher.pid)).toHaveLength(3);
    expect((await stack.call('GET', '/healthz')).status).toBe(200);
    const provider = await stack.createProvider('platform');

    await stack.redeploy({ apiProcesses: 1, workerCount: 2 });
    expect(launcher.exit).toBeDefined();
    expect(stack.apis).toEqual([stack.api]);
    expect(processTree(stack.api.pid)).toEqual([stack.api.pid]);
    expect(stack.workers).toHaveLength(2);
    expect(stack.workers.every((worker) => worker.exit === undefined)).toBe(true);
    // The provider made before is still there: same database.
    const answer = await stack.call('POST', '/v1/users/register', {
      headers: provider.headers,
      body: { platform_user_id: 'u-1' },
    });
    expect(answer.status).toBe(200);
  });
});
