import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../shared/db/project-root.js';
import { freePort } from './service.js';

/** Running: it exists and is not a zombie (a killed orphan waits there until whoever adopted it reaps it). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

// A test that times out is abandoned without its cleanup; what it started must not outlive the test process.
describe('startProcess', () => {
  it('stops what it started when the process that started it exits without stopping it', async () => {
    const port = await freePort();
    const script = `
      import { startProcess } from './e2e/harness/service.ts';
      const server = "require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')";
      const started = await startProcess({ name: 'orphan-check', args: ['-e', server], env: {}, readyUrl: 'http://127.0.0.1:${port}/healthz' });
      console.log(started.pid);
      process.exit(0);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: projectRoot(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    const pid = Number(output.trim());
    expect(pid).toBeGreaterThan(0);
    // SIGKILL is delivered at once; give the kernel a moment to reap it.
    for (let i = 0; i < 20 && alive(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const survived = alive(pid);
    if (survived) process.kill(pid, 'SIGKILL');
    expect(survived).toBe(false);
  });
});
