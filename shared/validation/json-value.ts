import { z } from 'zod';

const MAX_DEPTH = 16;

/**
 * Free-form JSON objects (metadata) are stored as jsonb. Postgres rejects
 * "\u0000" in text and jsonb and runs out of stack on absurd nesting, so both
 * are refused here as a 400 instead of surfacing as a database error.
 */
export function jsonProblem(value: unknown, depth = 0): string | null {
  if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
  if (typeof value === 'string') return value.includes('\u0000') ? 'contains a NUL character' : null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return 'has a key with a NUL character';
      const problem = jsonProblem(item, depth + 1);
      if (problem) return problem;
    }
  }
  return null;
}

/** A string that Postgres can store as text (no NUL). */
export const storableString = () => z.string().refine((value) => !value.includes('\u0000'), 'must not contain NUL characters');

/** A free-form JSON object that Postgres can store as jsonb. */
export const storableObject = () =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const problem = jsonProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
