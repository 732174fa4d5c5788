import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../db/project-root.js';
import { eventually } from './eventually.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** Every line the process wrote to stdout and stderr so far. */
  output: string[];
  /** Base URL of the API (api only), known once it logged that it listens. */
  url: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built api or worker (dist/, compiled by the global setup) as a
 * real process with the given environment, and waits until it is up.
 */
export async function startService(kind: 'api' | 'worker', env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [join(projectRoot(), 'dist', kind, 'main.js')], {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '', PORT: '0', WORKER_HEALTH_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let port: number | undefined;
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => ((exited = true), resolve(code))));
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        output.push(line);
        const listening = /"port":(\d+).*"msg":"api listening"/.exec(line);
        if (listening) port = Number(listening[1]);
      }
    });
  }
  const readyMessage = kind === 'api' ? 'api listening' : 'worker started';
  try {
    await eventually(async () => (exited ? Promise.reject(new Error(`${kind} exited:\n${output.join('\n')}`)) : output.some((l) => l.includes(readyMessage)) || undefined), {
      timeoutMs: 20_000,
      what: `${kind} to start`,
    });
  } catch (error) {
    // Never leave a half-started process behind a failed test or benchmark.
    child.kill('SIGKILL');
    throw error;
  }
  return {
    child,
    output,
    url: () => {
      if (port === undefined) throw new Error('api port unknown');
      return `http://127.0.0.1:${port}`;
    },
    async stop(signal = 'SIGTERM') {
      if (!exited) child.kill(signal);
      return exit;
    },
  };
}
