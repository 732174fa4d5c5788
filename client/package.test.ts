import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainOverApi } from '../api/testing/chains.js';
import { type ListeningApp, listen } from '../api/testing/http-server.js';
import { useTestService } from '../api/testing/test-service.js';
import { projectRoot } from '../shared/db/project-root.js';

const run = promisify(execFile);
const root = projectRoot();
const clientDir = join(root, 'client');

/**
 * The SDK as an integrator gets it: built (`npm run client:build`), packed
 * with `npm pack` (so `files` and `exports` are what is tested), unpacked
 * into a scratch project's node_modules beside its one dependency, and used
 * from plain JavaScript and from TypeScript that only sees the package.
 */
let project: string;
let packed: string[];

beforeAll(async () => {
  await run('npm', ['run', '--silent', 'client:build'], { cwd: root });
  project = await mkdtemp(join(tmpdir(), 'qcr-sdk-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], { cwd: clientDir });
  const [tarball] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  packed = tarball!.files.map((file) => file.path);
  const scope = join(project, 'node_modules', '@quest-chains');
  await mkdir(scope, { recursive: true });
  await run('tar', ['-xzf', join(project, tarball!.filename), '-C', scope]);
  await rename(join(scope, 'package'), join(scope, 'client'));
  // The package's dependency, as `npm install` would place it (the registry's copy is the same version as the lock's).
  await symlink(join(root, 'node_modules', 'openapi-fetch'), join(project, 'node_modules', 'openapi-fetch'), 'dir');
  await symlink(
    join(root, 'node_modules', 'openapi-typescript-helpers'),
    join(project, 'node_modules', 'openapi-typescript-helpers'),
    'dir',
  );
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
}, 120_000);
afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the package', () => {
  it('ships JavaScript and type definitions for both entry points, and no tests or sources', async () => {
    for (const file of [
      'package.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/live.js',
      'dist/live.d.ts',
      'dist/schema.d.ts',
      'openapi.json',
    ]) {
      expect(packed).toContain(file);
    }
    expect(packed.filter((file) => /\.test|test-helper|^[^/]+\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(await readFile(join(clientDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': expect.any(String) });
    // The server does not ship the SDK's dependency.
    const server = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(server.dependencies).not.toHaveProperty('openapi-fetch');
  });

  it('type-checks a TypeScript consumer against the shipped declarations, and rejects a wrong field', async () => {
    await writeFile(
      join(project, 'consumer.ts'),
      [
        "import { createQuestChainClient, openLiveUpdates, type components } from '@quest-chains/client';",
        "import { liveUpdatesUrl } from '@quest-chains/client/live';",
        "const quests = createQuestChainClient({ baseUrl: 'http://x', apiKey: 'k', apiSecret: 's' });",
        "const event: components['schemas']['EventInput'] = { user_id: 'u', event_type: 'kyc', timestamp: '2026-01-01T00:00:00Z' };",
        'export async function main(signal: AbortSignal) {',
        '  const sent = await quests.sendEvent(event, { signal, timeoutMs: 1000 });',
        "  const status: 'received' | 'duplicate' = sent.status;",
        "  const active = await quests.getActiveQuestChains('u');",
        "  openLiveUpdates('http://x', active.liveUpdates, { onProgress: (p) => p.quest_chain_ids.length });",
        '  // @ts-expect-error: `userId` is not a field of an event (the types are real, not `any`)',
        "  await quests.sendEvent({ userId: 'u', event_type: 'kyc', timestamp: 'x' });",
        "  return [status, liveUpdatesUrl('http://x', active.liveUpdates)];",
        '}',
      ].join('\n'),
    );
    // A browser-or-Node consumer: DOM typings, no @types/node.
    const compilerOptions = {
      noEmit: true,
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2023', 'dom'],
      types: [],
    };
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
  });
});

describe('from plain JavaScript against the real service', () => {
  const { api, platform, advertiser } = useTestService('sdk_package');
  let server: ListeningApp;

  beforeAll(async () => {
    await createChainOverApi(api, platform.id, advertiser.id, {
      name: 'Package chain',
      start: new Date(Date.now() - 3600_000).toISOString(),
      end: new Date(Date.now() + 86_400_000).toISOString(),
      tasks: [{ event: 'registration' }, { event: 'kyc' }],
      reward: false,
    });
    server = await listen(api.app);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('runs examples/quick-start.mjs: register, event, active chains, a refused event, the live stream', async () => {
    await copyFile(join(clientDir, 'examples', 'quick-start.mjs'), join(project, 'quick-start.mjs'));
    const { stdout } = await run(process.execPath, ['quick-start.mjs', 'mjs-user'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', QCR_BASE_URL: server.url, QCR_API_KEY: platform.key, QCR_API_SECRET: platform.secret },
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      registered: 'mjs-user',
      event: 'received',
      chains: ['Package chain'],
      refused: { status: 400, code: expect.any(String) },
      ready: { user_exists: true, livemode: true, transport: 'fetch' },
    });
  });
});
