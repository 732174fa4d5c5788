import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';

const run = promisify(execFile);
const root = projectRoot();
const REGENERATE =
  'client/openapi.json or client/schema.d.ts differs from what the service serves: run `npm run client:generate` and commit both';

/**
 * The SDK's committed document and types must be what `npm run
 * client:generate` makes from the document the service serves today: the
 * same export (dist/api/operator/export-openapi.js, built by the global
 * setup) and the same openapi-typescript run, into a scratch folder.
 */
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'qcr-drift-'));
  await run(process.execPath, [join(root, 'dist', 'api', 'operator', 'export-openapi.js'), join(scratch, 'openapi.json')], {
    cwd: root,
  });
  const generator = join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  await run(process.execPath, [generator, join(scratch, 'openapi.json'), '--output', join(scratch, 'schema.d.ts')], {
    cwd: root,
  });
}, 120_000);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const read = (path: string) => readFile(path, 'utf8');

describe('the SDK against the served document', () => {
  it('client/openapi.json is the served /openapi.json', async () => {
    const served = JSON.parse(await read(join(scratch, 'openapi.json')));
    const committed = JSON.parse(await read(join(root, 'client', 'openapi.json')));
    expect(committed, REGENERATE).toEqual(served);
  });

  it('client/schema.d.ts is generated from it', async () => {
    expect(await read(join(root, 'client', 'schema.d.ts')), REGENERATE).toBe(await read(join(scratch, 'schema.d.ts')));
  });
});
