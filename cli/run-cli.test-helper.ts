import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../shared/db/project-root.js';
import { childProcessEnv } from '../shared/testing/service-env.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI (dist/, compiled by the global setup), as an operator runs it, with `env` alone (and PATH). */
export function runCli(args: string[], env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(projectRoot(), 'dist', 'cli', 'main.js'), ...args],
      { cwd: projectRoot(), env: childProcessEnv(env), timeout: options.timeoutMs ?? 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
