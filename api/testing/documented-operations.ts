import { parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createApp } from '../app.js';
import type { AppDeps } from '../app-env.js';
import { adminDocument, integratorDocument } from '../operator/openapi-documents.js';

export interface DocumentedOperation {
  method: string;
  /** As the document spells it: `/v1/events/{event_id}/reverse`. */
  path: string;
  operationId: string;
  /** The names of the security schemes the operation requires (`ApiKey`, `AdminToken`); empty when open. */
  schemes: string[];
}

/**
 * Every operation of the two documents the app serves, read without a
 * connection, as `export-openapi` does: building the app registers the routes
 * and touches no dependency but the config and the logger. Synchronous, so a
 * test file can generate one test per operation.
 */
export function documentedOperations(): DocumentedOperation[] {
  const deps = { config: parseConfig({}), logger: createLogger({ level: 'silent', name: 'documents' }) } as unknown as AppDeps;
  const app = createApp(deps);
  return [integratorDocument(app), adminDocument(app)].flatMap((document) =>
    Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId?: string; security?: Record<string, string[]>[] }>).map(
        ([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          operationId: operation.operationId ?? `${method} ${path}`,
          schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
        }),
      ),
    ),
  );
}
