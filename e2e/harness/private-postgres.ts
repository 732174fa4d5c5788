import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './service.js';

const run = promisify(execFile);

type PostgresStopMode = 'smart' | 'fast' | 'immediate';

export interface PrivatePostgres {
  port: number;
  /** The server's maintenance database (`postgres`): hand it to createDatabaseNamed and friends. */
  serverUrl: string;
  /** URL of a database on this server. */
  databaseUrl(name: string): string;
  /** `pg_ctl stop -m <mode>`: `fast` is an orderly restart's first half, `immediate` a crash (no shutdown checkpoint). */
  stop(mode?: PostgresStopMode): Promise<void>;
  /** Starts the server again on the same port and data directory (data kept). */
  start(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/**
 * Postgres refuses to run as root: when the tests run as root the server's
 * tools run as the `postgres` user (which the machine's packages create).
 */
function asServerUser(command: string, args: string[]) {
  const root = userInfo().uid === 0;
  return root ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
}

/** The uid/gid of `postgres` when we are root (the data directory must belong to it), else undefined. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  // `id` rather than parsing /etc/passwd: works with any name service.
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A throwaway Postgres server of a test's own (initdb in a temp directory,
 * the machine's binaries, a free port), so a test can stop it fast or
 * immediate and bring it back without touching the server everyone else uses.
 * Trust authentication on 127.0.0.1 only; fsync off (its data is disposable).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'qcr-pg-'));
  const owner = serverUser();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  await asServerUser('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);

  const serverOptions = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c max_connections=200',
  ];
  const start = async () => {
    await asServerUser('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '30', '-o', serverOptions.join(' ')]);
  };
  const stop = async (mode: PostgresStopMode = 'fast') => {
    await asServerUser('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '30']);
  };

  await start();
  const databaseUrl = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  return {
    port,
    serverUrl: databaseUrl('postgres'),
    databaseUrl,
    stop,
    start,
    async destroy() {
      await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
