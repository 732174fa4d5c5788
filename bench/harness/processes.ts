import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { projectRoot } from '../../shared/db/project-root.js';

export interface BenchProcess {
  name: string;
  pid: number;
  /** Where its stdout and stderr go (never read by the benchmark while it measures). */
  logFile: string;
  stop(): Promise<number | null>;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts `node <args>` with its output appended to `<outputDir>/<name>.log`,
 * and waits until `readyUrl` answers 200 (polled over HTTP: the benchmark
 * never reads the process's output, which would cost it CPU while it measures).
 */
export async function startProcess(options: {
  name: string;
  args: string[];
  env: Record<string, string>;
  outputDir: string;
  readyUrl: string;
}): Promise<BenchProcess> {
  const logFile = join(options.outputDir, `${options.name}.log`);
  const output = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, options.args, {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => ((exitCode = code), resolve(code))));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${options.name} exited (${exitCode}); see ${logFile}:\n${tail(logFile)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not become ready; see ${logFile}:\n${tail(logFile)}`);
    }
    if (await answers(options.readyUrl)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name: options.name,
    pid: child.pid!,
    logFile,
    async stop() {
      if (exitCode !== undefined) return exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}
