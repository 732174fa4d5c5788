import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { childProcessEnv } from '../shared/testing/service-env.js';
import { freePort } from './harness/service.js';
import { type Stack, startStack } from './harness/stack.js';
import { createChain, registerUser, sendBatch, sleep } from './support/webhook-world.js';

// docs/webhooks.md's receiver works when pasted: the code block between its guide-receiver markers
// runs as is (node, ESM) against the real service, prints the verified message, and refuses a forgery.

const guide = readFileSync(join(projectRoot(), 'docs', 'webhooks.md'), 'utf8');
const block = /<!-- guide-receiver:start -->\n```js\n([\s\S]*?)```\n<!-- guide-receiver:end -->/.exec(guide)?.[1];
// Inside the project, so `standardwebhooks` resolves from its node_modules as it would from the reader's.
const file = join(projectRoot(), 'dist', `guide-receiver-${uniqueSuffix()}.mjs`);

let stack: Stack;
let receiver: ChildProcess | undefined;
beforeAll(async () => {
  stack = await startStack('webhooks_guide', { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
}, 60_000);
afterAll(async () => {
  receiver?.kill('SIGKILL');
  await rm(file, { force: true });
  await stack?.stop();
});

it("the guide's receiver verifies a real message and refuses a forged one", async () => {
  expect(block, 'the guide-receiver block in docs/webhooks.md').toBeDefined();
  await writeFile(file, block!);
  const platform = await stack.createProvider('platform');
  const port = await freePort();
  const created = await stack.call('POST', '/v1/webhook-endpoints', {
    headers: platform.headers,
    body: { url: `http://127.0.0.1:${port}/` },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);

  const output: string[] = [];
  receiver = spawn(process.execPath, [file], {
    cwd: projectRoot(),
    env: childProcessEnv({ WEBHOOK_SECRET: created.json.data.secret, PORT: String(port) }),
  });
  receiver.stdout!.on('data', (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  await eventually(
    async () =>
      await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })
        .then((r) => r.status)
        .catch(() => undefined),
    { what: 'the receiver to listen' },
  );

  const forged = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'webhook-id': 'msg_forged',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,AAAA',
    },
    body: '{"id":"msg_forged","type":"task.completed","created_at":"2026-01-01T00:00:00.000Z","data":{}}',
  });
  expect(forged.status).toBe(400);

  await createChain(stack, platform, await stack.createProvider('advertiser'), ['guide']);
  await registerUser(stack, platform, 'guide-reader');
  await sleep(1500);
  await sendBatch(stack, platform, [
    { user_id: 'guide-reader', event_type: 'guide', timestamp: new Date(Date.now() - 60_000).toISOString() },
  ]);
  const line = await eventually(async () => output.find((l) => l.startsWith('verified task.completed msg_')), {
    what: 'the verified line',
  });
  expect(JSON.parse(line.split(' ').slice(3).join(' '))).toMatchObject({ platform_user_id: 'guide-reader', sequence_number: 1 });
  expect(output.some((l) => l.includes('msg_forged'))).toBe(false);
}, 60_000);
