import type { HttpClientOptions } from '../../../shared/testing/api-client.js';

/**
 * How the suite's clients call the API (shared/testing/api-client.ts): a call
 * that gets no answer within 10 s, or none at all, resolves with status 0, so
 * the load records what it cannot know (whether the server acted on it)
 * instead of stopping.
 */
export const LOAD_CLIENT = { noAnswer: 'status-0', timeoutMs: 10_000 } as const satisfies HttpClientOptions;

/** The published error envelope: `success: false` and a message. */
export function isErrorEnvelope(body: unknown): boolean {
  try {
    const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as { success?: unknown; error?: unknown } | undefined;
    return parsed?.success === false && typeof parsed.error === 'string';
  } catch {
    return false;
  }
}
