#!/usr/bin/env node
// Proves the live stream works in a real browser from another origin (product
// rules §8): headless Chromium loads a page served on one port, the page opens
// `new EventSource('http://127.0.0.1:<api port>/v1/live?token=…')`, and must
// receive `ready`, then `progress` once an event completes a task. A
// screenshot of the page is written to docs/live-cors.png.
//
//   node scripts/live-cors-check.mjs [out.png]
//
// It starts its own API and worker from dist/ (built first if stale) on free
// ports, against DATABASE_URL's server (default the local one) in a database
// of its own (qcr_live_cors_check, created and migrated on first use) and
// REDIS_URL under a queue prefix of its own. Needs Debian's `chromium`
// (apt-get install -y chromium), or CHROMIUM=/path/to/binary.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { buildIfStale, projectRoot } from './build-if-stale.mjs';

const out = resolve(process.argv[2] ?? join(projectRoot, 'docs', 'live-cors.png'));
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/quest_chains');
serverUrl.pathname = '/qcr_live_cors_check';
const adminToken = `live-cors-${randomBytes(12).toString('hex')}`;
const env = {
  PATH: process.env.PATH ?? '',
  DATABASE_URL: serverUrl.toString(),
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  QUEUE_PREFIX: `live-cors-${randomBytes(4).toString('hex')}`,
  ADMIN_TOKEN: adminToken,
  MIGRATE_ON_START: 'true',
  PORT: '0',
  WORKER_HEALTH_PORT: '0',
  LOG_LEVEL: 'info',
  // Passed through to try a list (with the page's origin absent from it, the check must fail).
  ...(process.env.LIVE_ALLOWED_ORIGINS ? { LIVE_ALLOWED_ORIGINS: process.env.LIVE_ALLOWED_ORIGINS } : {}),
};

const children = [];
/** Starts dist/<kind>/main.js and resolves once it logged that it is up (with the API's port). */
function start(kind) {
  const child = spawn(process.execPath, [join(projectRoot, 'dist', kind, 'main.js')], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolvePort, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const port = /"port":(\d+)[^\n]*"msg":"api listening"/.exec(buffered)?.[1];
      if (kind === 'api' && port) resolvePort(Number(port));
      if (kind === 'worker' && buffered.includes('"msg":"worker started"')) resolvePort(0);
    });
    child.on('exit', (code) => reject(new Error(`${kind} exited (${code}) before it was up`)));
  });
}

async function call(base, method, path, body, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data;
}

/** The page of "the platform's own origin": it only opens the stream and writes down what arrives. */
const page = (streamUrl) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Live stream from another origin</title>
<style>body{font:15px system-ui,sans-serif;margin:24px;color:#222}code{background:#f2f2f2;padding:2px 4px}
li{margin:6px 0;font-family:ui-monospace,monospace;font-size:13px}.ready{color:#06c}.progress{color:#080}.error{color:#c00}</style></head>
<body><h2>EventSource from <code id="origin"></code> to <code>${new URL(streamUrl).origin}</code></h2>
<p>Page origin and API origin differ: the browser enforces CORS on this stream.</p><ol id="log"></ol>
<script>
  document.getElementById('origin').textContent = location.origin;
  const log = (kind, text) => { const li = document.createElement('li'); li.className = kind; li.textContent = kind + ': ' + text; document.getElementById('log').append(li); };
  const source = new EventSource(${JSON.stringify(streamUrl)});
  source.addEventListener('ready', (e) => log('ready', e.data));
  source.addEventListener('progress', (e) => log('progress', e.data + ' (id ' + e.lastEventId + ')'));
  source.onerror = () => log('error', 'readyState ' + source.readyState);
</script></body></html>`;

let browser;
let pageServer;
let profile;
let failed = false;
const consoleErrors = [];
try {
  await buildIfStale();
  const apiPort = await start('api');
  await start('worker');
  const api = `http://127.0.0.1:${apiPort}`;
  const admin = { authorization: `Bearer ${adminToken}` };

  // A platform, an advertiser, a chain whose first task is a `login`, and a registered user.
  const platform = await call(api, 'POST', '/admin/v1/providers', { type: 'platform', name: 'CORS check platform' }, admin);
  const advertiser = await call(api, 'POST', '/admin/v1/providers', { type: 'advertiser', name: 'CORS check advertiser' }, admin);
  const credential = await call(api, 'POST', `/admin/v1/providers/${platform.id}/credentials`, {}, admin);
  const headers = { 'x-api-key': credential.key, 'x-api-secret': credential.secret };
  const day = 24 * 60 * 60 * 1000;
  await call(
    api,
    'POST',
    '/admin/v1/quest-chains',
    {
      platform_id: platform.id,
      advertiser_id: advertiser.id,
      name: 'CORS check chain',
      description: 'Log in, then buy',
      start_date: new Date(Date.now() - day).toISOString(),
      end_date: new Date(Date.now() + day).toISOString(),
      status: 'active',
      tasks: [
        {
          sequence_number: 1,
          name: 'Log in',
          condition_event_type: 'login',
          reward_type: 'points',
          reward_name: '10 points',
          reward_value: 10,
        },
        {
          sequence_number: 2,
          name: 'Buy',
          condition_event_type: 'purchase',
          reward_type: 'points',
          reward_name: '20 points',
          reward_value: 20,
        },
      ],
    },
    admin,
  );
  const userId = `cors-user-${randomBytes(3).toString('hex')}`;
  await call(api, 'POST', '/v1/users/register', { platform_user_id: userId }, headers);
  const active = await call(api, 'GET', `/v1/quest-chains/active/${userId}`, undefined, headers);
  const streamUrl = `${api}/v1/live?token=${encodeURIComponent(active.liveUpdates.token)}`;

  // The page on another origin (same host, another port).
  pageServer = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(streamUrl)),
  );
  await new Promise((resolveListen) => pageServer.listen(0, '127.0.0.1', resolveListen));
  const pageUrl = `http://127.0.0.1:${pageServer.address().port}/`;

  profile = await mkdtemp(join(tmpdir(), 'qcr-live-cors-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1100, height: 420 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const tab = browser.pages()[0] ?? (await browser.newPage());
  tab.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await tab.goto(pageUrl);
  await tab.waitForSelector('li.ready', { timeout: 15_000 });

  // An event that completes the first task: the worker matches it and the stream says `progress`.
  await call(api, 'POST', '/v1/events', { user_id: userId, event_type: 'login', timestamp: new Date().toISOString() }, headers);
  await tab.waitForSelector('li.progress', { timeout: 30_000 });
  await tab.screenshot({ path: out });

  const lines = await tab.$$eval('#log li', (items) => items.map((item) => item.textContent));
  console.log(`page ${pageUrl} -> stream ${api}/v1/live`);
  for (const line of lines) console.log(`  ${line}`);
  if (consoleErrors.length > 0) console.log(`console errors:\n  ${consoleErrors.join('\n  ')}`);
  const ok = lines.some((line) => line.startsWith('ready:')) && lines.some((line) => line.startsWith('progress:'));
  if (!ok) failed = true;
  console.log(ok ? `OK: ready and progress received across origins; screenshot ${out}` : 'FAILED: ready or progress missing');
} catch (error) {
  failed = true;
  console.error(`FAILED: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  if (consoleErrors.length > 0) console.error(`console errors:\n  ${consoleErrors.join('\n  ')}`);
} finally {
  await browser?.close().catch(() => {});
  pageServer?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await Promise.all(
    children.map((child) =>
      child.exitCode === null ? new Promise((done) => child.once('exit', done).kill('SIGTERM')) : undefined,
    ),
  );
}
process.exit(failed ? 1 : 0);
