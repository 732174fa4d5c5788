import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import type { AppEnv } from '../app-env.js';
import { ADMIN_DOCUMENT_PATH, INTEGRATOR_DOCUMENT_PATH } from './openapi-documents.js';

const BUNDLE_PATH = '/docs/scalar.js';

// Scalar's page loads its renderer from a public CDN by default. The service
// must work without internet access (and should not make operators' browsers
// fetch third-party code), so the package's standalone browser bundle is
// served from here instead. Read on first use, then kept: 3.5 MB, immutable per release.
let bundle: Promise<string> | undefined;
function loadBundle(): Promise<string> {
  bundle ??= readFile(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js'), 'utf8');
  return bundle;
}

/** GET /docs and GET /admin/docs: interactive references for the two documents. Not part of the documents themselves. */
export function registerDocsRoutes(app: OpenAPIHono<AppEnv>) {
  app.get(BUNDLE_PATH, async (c) => {
    const body = await loadBundle();
    return c.body(body, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=3600',
    });
  });

  app.get('/docs', referencePage(INTEGRATOR_DOCUMENT_PATH, 'Quest-Chain Rewards API'));
  app.get('/admin/docs', referencePage(ADMIN_DOCUMENT_PATH, 'Quest-Chain Rewards Admin API'));
}

function referencePage(url: string, pageTitle: string) {
  return Scalar({
    url,
    cdn: BUNDLE_PATH,
    pageTitle,
    // No font CDN, no telemetry, no hosted AI agent or deploy/share toolbar: nothing leaves the operator's network.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
    // The API secret belongs in backends only (public interface, Authentication 5): no in-browser "try it" client.
    hideClientButton: true,
    defaultOpenAllTags: true,
  });
}
