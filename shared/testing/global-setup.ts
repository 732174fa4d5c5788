import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../db/project-root.js';

/** scripts/local-servers.mjs, as far as the tests use it. */
export interface LocalServers {
  ensureLocalServers(options: {
    root: string;
    env: NodeJS.ProcessEnv;
    log: (level: string, msg: string, fields?: Record<string, unknown>) => void;
    needRedis?: boolean;
  }): Promise<{
    urls: { database?: string; redis?: string };
    serverUrl?: string;
    stop(): Promise<unknown>;
  }>;
}

/**
 * End-to-end tests spawn the built processes (dist/api/main.js,
 * dist/worker/main.js). `npm test` has just built them, so this is a no-op
 * there: `tsc -b` compares the sources with dist/'s build info and compiles
 * only when dist/ is missing or older than a source, which keeps a lone
 * `npx vitest run <e2e file>` working after an edit. Type errors do not stop
 * the emit or the tests here: `npm test` type-checks first and that is the gate.
 *
 * Postgres and Redis are decided as `npm start` decides them
 * (scripts/local-servers.mjs): TEST_DATABASE_URL / REDIS_URL as given, else the
 * ones on the standard ports, else an embedded Postgres and a private
 * redis-server on those ports for the run, stopped at its end. The test
 * processes inherit the variables set here.
 */
export default async function setup() {
  const started = Date.now();
  const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json', '--verbose'], {
    cwd: projectRoot(),
    encoding: 'utf8',
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) process.stderr.write(`build reported problems (tests run on what was emitted):\n${output}\n`);
  else if (output.includes('Building project'))
    process.stderr.write(`dist/ was older than the sources: rebuilt in ${Date.now() - started} ms\n`);

  const { ensureLocalServers } = (await import(
    pathToFileURL(join(projectRoot(), 'scripts', 'local-servers.mjs')).href
  )) as LocalServers;
  const servers = await ensureLocalServers({
    root: projectRoot(),
    // For the tests the Postgres variable is TEST_DATABASE_URL (the server's maintenance database).
    env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL },
    // Only what was started is worth a line: the usual run finds both on their ports and stays quiet.
    log: (_level, msg) => {
      if (!msg.includes(': the one answering on')) process.stderr.write(`${msg}\n`);
    },
  });
  if (servers.urls.database && servers.serverUrl && !servers.serverUrl.includes(':5432/'))
    process.env.TEST_DATABASE_URL = servers.serverUrl;
  if (servers.urls.redis && !servers.urls.redis.endsWith(':6379')) process.env.REDIS_URL = servers.urls.redis;
  return () => servers.stop();
}
