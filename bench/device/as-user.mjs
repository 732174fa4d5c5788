// node as-user.mjs <uid> <gid> [--log <file>] -- <command> [<arg>...]
// Runs <command> as uid:gid from /, with LC_ALL=C and nothing else of this
// environment but PATH: Postgres refuses to run as root, and the device may
// have no su, runuser or setpriv. In the foreground it exits with the
// command's code; with --log the command runs detached, its output appended
// to <file>, and its pid is printed. Part of the device bundle (make-bundle.sh).
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const [uid, gid, ...options] = argv.slice(0, split < 0 ? 0 : split);
const [command, ...args] = argv.slice(split + 1);
if (split < 0 || !command || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) {
  process.stderr.write('usage: node as-user.mjs <uid> <gid> [--log <file>] -- <command> [<arg>...]\n');
  process.exit(2);
}
const logFile = options[0] === '--log' ? options[1] : undefined;
const output = logFile ? openSync(logFile, 'a') : 'inherit';
const child = spawn(command, args, {
  uid: Number(uid),
  gid: Number(gid),
  cwd: '/',
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
  stdio: ['ignore', output, output],
  detached: Boolean(logFile),
});
child.once('error', (error) => {
  process.stderr.write(`as-user: ${command}: ${error.message}\n`);
  process.exit(127);
});
if (logFile) {
  child.once('spawn', () => {
    process.stdout.write(`${child.pid}\n`);
    child.unref();
    process.exit(0);
  });
} else child.once('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
