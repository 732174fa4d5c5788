import { servedConformance } from '../../shared/testing/openapi-conformance.js';
import { recordOpenApiMismatch } from '../../shared/testing/openapi-mismatches.js';

interface JsonRequest {
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A JSON call to a running service (a spawned API process): the status and
 * the parsed body (undefined when empty). Strings are sent as they are, so
 * tests can send bodies that are not JSON.
 *
 * Every answer is checked against the OpenAPI documents that same service
 * serves (shared/testing/openapi-conformance.ts): an undocumented route or
 * status, or a body its schema does not allow, throws naming the operation,
 * the status and the schema error, and is recorded so that the test fails
 * even if a retry loop swallows the throw. Paths deliberately outside the
 * documents (OUTSIDE_THE_DOCUMENTS) are not checked.
 */
export async function requestJson(
  baseUrl: string,
  method: string,
  path: string,
  options: JsonRequest = {},
): Promise<{ status: number; json: any }> {
  const answer = await requestJsonUnchecked(baseUrl, method, path, options);
  const conformance = await servedConformance(baseUrl);
  const mismatch = conformance({ method, path, status: answer.status, body: answer.json });
  if (mismatch) {
    recordOpenApiMismatch(mismatch);
    throw new Error(mismatch);
  }
  return answer;
}

/**
 * `requestJson` without the document check: for the benchmark, whose load
 * generator shares the two cores with the service it measures, and for a
 * test's deliberate call of a route that is in neither document.
 */
export async function requestJsonUnchecked(
  baseUrl: string,
  method: string,
  path: string,
  options: JsonRequest = {},
): Promise<{ status: number; json: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}
