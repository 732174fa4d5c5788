import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createApp } from '../app.js';
import type { AppDeps } from '../app-env.js';
import { adminDocument, integratorDocument, type OpenApiDocument } from './openapi-documents.js';

/**
 * Writes the OpenAPI documents the app serves at /openapi.json (and, given a
 * second file, /admin/openapi.json), without a database, Redis or a
 * listening port: `npm run client:generate` turns the first into the SDK's
 * types, `npm run lint:openapi` lints both.
 *
 *   node dist/api/operator/export-openapi.js <out.json> [<admin-out.json>]
 */
async function exportDocuments(out: string, adminOut: string | undefined) {
  // Building the app reads only the config and the logger; everything else
  // stays absent, so a route that starts using deps at registration time
  // fails here loudly instead of connecting somewhere. The documents are
  // built from the registered routes directly: no request goes through the
  // middleware, which would need the rest of deps.
  const config = parseConfig({});
  const deps = { config, logger: createLogger({ level: 'silent', name: 'export-openapi' }) } as unknown as AppDeps;
  const app = createApp(deps);
  await write(out, integratorDocument(app));
  if (adminOut) await write(adminOut, adminDocument(app));
}

async function write(file: string, document: OpenApiDocument) {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`OpenAPI document "${document.info.title}" written to ${file}\n`);
}

const [target, adminTarget] = process.argv.slice(2);
if (!target) {
  process.stderr.write('usage: export-openapi <out.json> [<admin-out.json>]\n');
  process.exit(2);
}
await exportDocuments(resolve(target), adminTarget ? resolve(adminTarget) : undefined);
