// Takes a screenshot of the API reference page with headless Chromium (Debian's
// `chromium` package), to check by eye what an integrator sees.
//
//   npm run docs:screenshot                          # http://127.0.0.1:3000/docs -> docs/docs-page.png
//   npm run docs:screenshot -- http://host:port/docs [out.png]
//
// It starts nothing itself: run the API first (npm start or npm run start:api).
// Set CHROMIUM to use another binary.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const url = process.argv[2] ?? 'http://127.0.0.1:3000/docs';
const out = resolve(process.argv[3] ?? join(dirname(fileURLToPath(import.meta.url)), 'docs-page.png'));
const binary = process.env.CHROMIUM ?? 'chromium';

// A fresh profile each run, and every background feature that would phone out switched off.
const profile = await mkdtemp(join(tmpdir(), 'qcr-chromium-'));
const args = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  `--user-data-dir=${profile}`,
  '--window-size=1400,1000',
  // Lets the page's scripts run (fetch the document, render) before the picture is taken.
  '--virtual-time-budget=10000',
  `--screenshot=${out}`,
  url,
];

try {
  const code = await new Promise((resolvePromise, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', (error) => reject(new Error(`cannot run ${binary}: ${error.message} (apt-get install -y chromium)`)));
    child.once('exit', (exitCode) => {
      if (exitCode !== 0) process.stderr.write(stderr);
      resolvePromise(exitCode);
    });
  });
  if (code !== 0) throw new Error(`${binary} exited with ${code}`);
  const { size } = await stat(out);
  process.stdout.write(`screenshot of ${url} written to ${out} (${size} bytes)\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await rm(profile, { recursive: true, force: true });
}
