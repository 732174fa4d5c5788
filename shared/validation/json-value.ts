import { z } from 'zod';

const MAX_DEPTH = 16;

// A UTF-16 surrogate not paired with its other half: valid in a JSON escape
// ("\ud800"), but not a Unicode character, so Postgres' jsonb refuses it (and
// text would silently turn it into U+FFFD). With the u flag, a proper pair
// is one code point and does not match.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why Postgres could not store this string as text or inside jsonb, or null. */
function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(value)) return 'contains an unpaired UTF-16 surrogate';
  return null;
}

/**
 * Free-form JSON objects (metadata) are stored as jsonb. Postgres rejects
 * "\u0000" and unpaired surrogates in text and jsonb and runs out of stack on
 * absurd nesting, so all are refused here as a 400 instead of surfacing as a
 * database error (a 500).
 */
export function jsonProblem(value: unknown, depth = 0): string | null {
  if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
  if (typeof value === 'string') return stringProblem(value);
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = stringProblem(key);
      if (keyProblem) return `has a key that ${keyProblem}`;
      const problem = jsonProblem(item, depth + 1);
      if (problem) return problem;
    }
  }
  return null;
}

/** A string that Postgres can store as text and in jsonb (no NUL, no unpaired surrogate). */
export const storableString = () =>
  z.string().superRefine((value, ctx) => {
    const problem = stringProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A free-form JSON object that Postgres can store as jsonb. */
export const storableObject = () =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const problem = jsonProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
