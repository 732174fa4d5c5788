import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type Document, OpenAPIBackend, type Operation } from 'openapi-backend';

// ajv-formats is CommonJS: under NodeNext the default import is module.exports, whose `default` is the plugin.
const addFormats = addFormatsModule.default;

/**
 * Request paths that are deliberately in neither OpenAPI document
 * (docs/decisions.md, "Undocumented operator routes"): the reference pages,
 * the documents themselves, Prometheus text and the queue dashboard's HTML.
 * Every other answer must be a documented operation's documented status.
 */
export const OUTSIDE_THE_DOCUMENTS: readonly RegExp[] = [
  /^\/(admin\/)?docs(\/|$)/,
  /^\/(admin\/)?openapi\.json$/,
  /^\/metrics$/,
  /^\/admin\/queues(\/|$)/,
  /^\/admin\/campaigns(\/|$)/,
];

/** One answer as a client saw it: the request's method and path (a query is ignored), the status and the parsed JSON body. */
interface Answer {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** What is wrong with an answer against the documents, naming operation, status and schema error; undefined when it conforms. */
export type Conformance = (answer: Answer) => string | undefined;

export interface ServedDocuments {
  /** GET /openapi.json */
  integrator: unknown;
  /** GET /admin/openapi.json */
  admin: unknown;
}

/**
 * openapi-backend over one OpenAPI 3.1 document. `quick` skips the library's
 * own check of the document, which knows only OpenAPI 3.0 and refuses 3.1
 * (the documents are linted by redocly instead: openapi-lint.test.ts).
 * Schemas are compiled by Ajv's 2020-12 dialect, the one OpenAPI 3.1 uses,
 * with the formats (uuid, date-time, uri) checked rather than ignored.
 */
export async function openApiBackend(document: unknown): Promise<OpenAPIBackend> {
  const backend = new OpenAPIBackend({
    definition: structuredClone(document) as Document,
    quick: true,
    strict: true,
    customizeAjv: (_draft7, options) => {
      const ajv = new Ajv2020({ ...options, allErrors: true });
      addFormats(ajv);
      return ajv;
    },
  });
  await backend.init();
  return backend;
}

/** The conformance check of answers against both documents: /admin/* against the admin one, the rest against the integrators'. */
export async function conformanceTo(documents: ServedDocuments): Promise<Conformance> {
  const [integrator, admin] = await Promise.all([openApiBackend(documents.integrator), openApiBackend(documents.admin)]);
  // The router compiles a regular expression per operation on every match,
  // and the suites ask the same few paths again and again while polling.
  const operations = new Map<string, Operation | undefined>();
  const operationOf = (backend: OpenAPIBackend, method: string, path: string) => {
    const key = `${method} ${path}`;
    if (!operations.has(key)) operations.set(key, backend.router.matchOperation({ method, path, headers: {} }));
    return operations.get(key);
  };
  return (answer) => {
    const path = answer.path.split('?')[0]!;
    if (OUTSIDE_THE_DOCUMENTS.some((pattern) => pattern.test(path))) return undefined;
    const backend = path.startsWith('/admin/') ? admin : integrator;
    const operation = operationOf(backend, answer.method.toLowerCase(), path);
    if (!operation)
      return `${answer.method.toUpperCase()} ${path} answered ${answer.status}, but no operation of the served document matches the request`;
    const named = `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path})`;
    if (!documentsStatus(operation, answer.status)) {
      return `${named} answered ${answer.status}, a status the served document does not list for it (${Object.keys(operation.responses ?? {}).join(', ')})`;
    }
    const result = backend.validateResponse(answer.body, operation, answer.status);
    if (result.valid) return undefined;
    const errors = new Ajv2020().errorsText(result.errors, { dataVar: 'body', separator: '; ' });
    return `${named} answered ${answer.status} with a body the served document does not allow: ${errors}\nbody: ${JSON.stringify(answer.body)?.slice(0, 1000)}`;
  };
}

// OpenAPI's rule for a Responses Object: the exact code, then its range (2XX), then `default`.
// openapi-backend applies it to pick the schema but passes a status that matches none.
function documentsStatus(operation: Operation, status: number) {
  const listed = Object.keys(operation.responses ?? {});
  return listed.includes(String(status)) || listed.includes(`${Math.floor(status / 100)}XX`) || listed.includes('default');
}

const byService = new Map<string, Promise<Conformance>>();

/** The conformance check against the documents the service at `baseUrl` serves, fetched once per service. */
export function servedConformance(baseUrl: string): Promise<Conformance> {
  let conformance = byService.get(baseUrl);
  if (!conformance) {
    conformance = fetchServedDocuments(baseUrl).then(conformanceTo);
    // A service that could not answer now (stopped, restarting) is asked again next time.
    conformance.catch(() => byService.delete(baseUrl));
    byService.set(baseUrl, conformance);
  }
  return conformance;
}

async function fetchServedDocuments(baseUrl: string): Promise<ServedDocuments> {
  const [integrator, admin] = await Promise.all(
    ['/openapi.json', '/admin/openapi.json'].map(async (path) => {
      const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(10_000) });
      if (!response.ok)
        throw new Error(`GET ${baseUrl}${path} answered ${response.status}: no document to check answers against`);
      return response.json() as Promise<unknown>;
    }),
  );
  return { integrator, admin };
}
