// Where, and as whom, the embedded Postgres runs (scripts/local-servers.mjs).
// Not root: as the current user, binaries where npm put them, data in <data>/postgres.
// Root: Postgres refuses to run as root, so it runs as the system's `postgres`
// user, who must reach both its binaries and its data. A checkout inside a
// folder only root can enter (under /root, in a `mktemp -d` folder) is out of
// that user's reach; then what it cannot reach goes under /var/lib/quest-chains
// (root-owned, 0755):
//  - the binaries are copied once per package version, to
//    postgres-<version>-<platform>-<arch>/ (bin, lib and share find each other
//    by relative paths, so the folder moves whole);
//  - the data goes to <hash>/postgres, <hash> naming the checkout's data folder
//    (a hash of its real path), so each checkout finds its own data on every
//    start; <hash>/origin holds that path for whoever cleans up.
// A machine with no `postgres` user gets one (a system account with no home and
// no login) from useradd or adduser on PATH; when neither can, the error names
// the command to run.
// TEST_EMBEDDED_POSTGRES_USER and TEST_EMBEDDED_POSTGRES_HOME replace the name
// `postgres` and /var/lib/quest-chains: for the e2e test only, which must see a
// user created on a machine that has `postgres`, and leave nothing behind.
// Only node: built-ins (production dependencies suffice, see start.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const DEFAULT_HOME = '/var/lib/quest-chains';

function accountOf(name) {
  // `id` rather than parsing /etc/passwd: works with any name service.
  const id = (flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

function onPath(name, env) {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
}

/** The ways to add a system user, in the order tried: shadow's useradd, Debian's adduser, BusyBox's adduser. */
function creators(name) {
  const nologin = ['/usr/sbin/nologin', '/sbin/nologin'].find((shell) => existsSync(shell));
  const shell = nologin ? ['--shell', nologin] : [];
  return [
    ['useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', ...shell, name]],
    ['adduser', ['--system', '--group', '--no-create-home', '--home', '/nonexistent', ...shell, name]],
    ['adduser', ['-S', '-D', '-H', '-h', '/nonexistent', name]],
  ];
}

function createAccount(name, env, log) {
  const failures = [];
  for (const [command, args] of creators(name)) {
    if (!onPath(command, env)) continue;
    const result = spawnSync(command, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const account = result.status === 0 ? accountOf(name) : undefined;
    if (account) {
      log('warn', `postgres: created the system user ${name} to run the embedded Postgres as (${command})`, {
        postgresUser: name,
        uid: account.uid,
      });
      return account;
    }
    failures.push(`${command}: ${(result.stderr || result.error?.message || `exit ${result.status}`).trim()}`);
  }
  const why = failures.length > 0 ? failures.join('; ') : 'no useradd or adduser on PATH';
  throw new Error(
    `running as root, Postgres must run as a user of its own, and there is no \`${name}\` user and none could be created (${why}). ` +
      `Create it, then start again: \`useradd --system --user-group --no-create-home ${name}\` ` +
      `(Debian without useradd: \`adduser --system --group --no-create-home ${name}\`; Alpine: \`adduser -S -D -H ${name}\`)`,
  );
}

/** Whether `account` can reach `path`: every folder above it searchable, and the path itself executable or searchable. */
function reaches(account, path) {
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], { ...account, stdio: 'ignore' }).status === 0;
}

/** Creates a folder that any user may traverse (0755 whatever the umask). */
function openFolder(path) {
  mkdirSync(path, { recursive: true });
  chmodSync(path, 0o755);
  return path;
}

function reachableBinaries(binaries, account, home) {
  if (reaches(account, binaries.postgres)) return binaries;
  const native = dirname(dirname(binaries.postgres));
  const { version } = JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8'));
  const copy = join(openFolder(home), `postgres-${version}-${platform()}-${arch()}`);
  const complete = () => existsSync(join(copy, 'bin', 'postgres'));
  if (!complete()) {
    // Copied aside and renamed into place: a start cut short, or one racing ours, never sees half a copy.
    const partial = `${copy}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    try {
      renameSync(partial, copy);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      if (!complete()) throw error;
    }
  }
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

function reachableDataDir(dataRoot, account, home) {
  if (reaches(account, dataRoot)) return join(dataRoot, 'postgres');
  const origin = realpathSync(dataRoot);
  const folder = openFolder(join(home, createHash('sha256').update(origin).digest('hex').slice(0, 16)));
  writeFileSync(join(folder, 'origin'), `${origin}\n`);
  return join(folder, 'postgres');
}

/**
 * The binaries to run, the data directory, and the uid/gid to run them as
 * (empty when not root). `dataRoot` must exist.
 */
export function placeEmbeddedPostgres({ binaries, dataRoot, env, log }) {
  if (userInfo().uid !== 0) return { binaries, dataDir: join(dataRoot, 'postgres'), account: {} };
  const name = env.TEST_EMBEDDED_POSTGRES_USER || 'postgres';
  const account = accountOf(name) ?? createAccount(name, env, log);
  const home = env.TEST_EMBEDDED_POSTGRES_HOME || DEFAULT_HOME;
  return {
    binaries: reachableBinaries(binaries, account, home),
    dataDir: reachableDataDir(dataRoot, account, home),
    account,
  };
}
