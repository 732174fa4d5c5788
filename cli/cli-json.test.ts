import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';
import { childProcessEnv } from '../shared/testing/service-env.js';
import { useTestData } from '../shared/testing/test-data.js';

// The CLI as scripts and operators call it (§2.6): a prebuilt entry whose
// --json output `jq` can read, failures included, and exit code 2 for usage.

const { database } = useTestData('cli_json', { providers: false });
const entry = join(projectRoot(), 'dist', 'cli', 'main.js');
let scratch: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd ?? projectRoot(),
        env: childProcessEnv({ HOME: process.env.HOME ?? '/root', ...options.env }),
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const cli = (args: string[], env: Record<string, string> = { DATABASE_URL: database.url }) =>
  run(process.execPath, [entry, ...args], { env });

/** A --json failure: nothing on stdout, exactly one JSON object on stderr. */
function failure(result: Run) {
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  return JSON.parse(lines[0]!) as { success: boolean; error: string; code: string };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'qcr-cli-json-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('quest-chains --json', () => {
  it.each([
    [['no-such-command'], /unknown command 'no-such-command'/],
    [['providers', 'create', '--type', 'platform'], /required option '--name <name>'/],
    [['providers', 'create', '--type', 'platform', '--name', 'x', '--colour', 'red'], /unknown option '--colour'/],
  ])('%j is a usage error: exit 2, one JSON object on stderr, no hint text', async (args, message) => {
    const result = await cli(['--json', ...args]);
    expect(result.code).toBe(2);
    expect(failure(result)).toMatchObject({ success: false, code: 'usage', error: expect.stringMatching(message) });
  });

  it('answers input the schemas refuse with exit 2 and code invalid_input, naming the field', async () => {
    const result = await cli(['--json', 'providers', 'create', '--type', 'publisher', '--name', 'X']);
    expect(result.code).toBe(2);
    expect(failure(result)).toMatchObject({ code: 'invalid_input', error: expect.stringMatching(/^type: /) });
  });

  it('answers a refused operation with exit 1 and the domain code', async () => {
    const result = await cli(['--json', 'providers', 'activate', '00000000-0000-4000-8000-000000000000']);
    expect(result.code).toBe(1);
    expect(failure(result)).toMatchObject({ code: 'not_found' });
  });

  it('answers an unreachable database with exit 1 and code unavailable, without the URL', async () => {
    const result = await cli(['--json', 'providers', 'list'], {
      DATABASE_URL: 'postgres://operator:hunter2-secret@127.0.0.1:1/quest_chains',
    });
    expect(result.code).toBe(1);
    expect(failure(result)).toMatchObject({ code: 'unavailable' });
    expect(result.stderr).not.toContain('hunter2');
  });

  it('keeps the plain mode as it was: text on stderr, and still exit 2 for usage', async () => {
    const result = await cli(['no-such-command']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown command 'no-such-command'/m);
    expect(result.stderr).toContain('(add --help for usage)');
  });

  it('prints a result jq can read through `npm run cli --silent --` (no banner, no build output)', async () => {
    const created = await cli(['--json', 'providers', 'create', '--type', 'platform', '--name', 'Through npm']);
    expect(created.code, created.stderr).toBe(0);
    const result = await run('npm', ['run', 'cli', '--silent', '--', '--json', 'providers', 'list'], {
      env: { DATABASE_URL: database.url },
    });
    expect(result.code, result.stderr).toBe(0);
    const providers = JSON.parse(result.stdout) as { id: string; name: string }[];
    expect(providers.map((provider) => provider.id)).toContain(JSON.parse(created.stdout).id);
  });

  it('runs as the package bin (npx quest-chains) from its shebang', async () => {
    const result = await run('npx', ['--no-install', 'quest-chains', '--json', 'providers', 'list'], {
      env: { DATABASE_URL: database.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(result.stdout))).toBe(true);
  });

  it('reads DATABASE_URL from .env in the working directory when the environment has none', async () => {
    await writeFile(join(scratch, '.env'), `# written by the test\nDATABASE_URL=${database.url}\n`);
    const result = await run(process.execPath, [entry, '--json', 'providers', 'list'], { cwd: scratch });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Through npm' })]));
  });
});
