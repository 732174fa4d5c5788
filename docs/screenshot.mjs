// Takes the pictures of the API reference page that README.md shows, with
// headless Chromium (Debian's `chromium` package) driven by playwright-core:
//
//   docs/docs-page.png           the top of /docs: the guides
//   docs/docs-event-example.png  POST /v1/events: body, generated curl line, answer example
//
//   npm run docs:screenshot                                  # http://127.0.0.1:3000/docs -> docs/
//   npm run docs:screenshot -- http://host:port/docs [out-dir]
//
// It starts nothing itself: run the API first (npm start or npm run start:api).
// Set CHROMIUM to use another binary.
import { access } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const url = process.argv[2] ?? 'http://127.0.0.1:3000/docs';
const outDir = resolve(process.argv[3] ?? dirname(fileURLToPath(import.meta.url)));

/** The Chromium binary: $CHROMIUM, else `chromium` on the PATH. */
async function findChromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(directory, 'chromium');
    if (
      await access(candidate).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  throw new Error('no chromium on the PATH (apt-get install -y chromium, or set CHROMIUM)');
}

const browser = await chromium.launch({ executablePath: await findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // The page must render from the service alone: anything it asks of another origin is refused.
  const origin = new URL(url).origin;
  await page.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort()));
  await page.goto(url, { waitUntil: 'networkidle' });
  const operation = page.locator('[id$="/tag/events/POST/v1/events"]');
  await operation.waitFor();

  const shots = [
    { file: 'docs-page.png', take: (path) => page.screenshot({ path }) },
    { file: 'docs-event-example.png', take: (path) => operation.screenshot({ path }) },
  ];
  for (const shot of shots) {
    const path = join(outDir, shot.file);
    await shot.take(path);
    process.stdout.write(`${path}\n`);
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
