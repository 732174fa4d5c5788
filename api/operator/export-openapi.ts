import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createApp } from '../app.js';
import type { AppDeps } from '../app-env.js';

/**
 * Writes the OpenAPI document the app serves at /openapi.json to a file,
 * without a database, Redis or a listening port: `npm run client:generate`
 * turns it into client/schema.d.ts.
 *
 *   node dist/api/operator/export-openapi.js <out.json>
 */
async function exportDocument(out: string) {
  // Building the app and answering /openapi.json read only the config and the
  // logger; everything else stays absent, so a route that starts using deps at
  // registration time fails here loudly instead of connecting somewhere.
  const config = parseConfig({});
  const deps = { config, logger: createLogger({ level: 'silent', name: 'export-openapi' }) } as unknown as AppDeps;
  const response = await createApp(deps).request('/openapi.json');
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  const document: unknown = await response.json();
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`OpenAPI document written to ${out}\n`);
}

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: export-openapi <out.json>\n');
  process.exit(2);
}
await exportDocument(resolve(target));
