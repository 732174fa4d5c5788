import { z } from 'zod';

const MAX_DEPTH = 16;

// A UTF-16 surrogate not paired with its other half: valid in a JSON escape
// ("\ud800"), but not a Unicode character, so Postgres' jsonb refuses it (and
// text would silently turn it into U+FFFD). With the u flag, a proper pair
// is one code point and does not match.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why Postgres could not store this string as text or inside jsonb, or null. */
/** Why Postgres would refuse `value` as text, or null. */
export function stringProblem(value: string): string | null {
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
function jsonProblem(value: unknown, depth = 0): string | null {
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

// Keys that mean something to JavaScript objects themselves: assigning them
// (as zod and every spread or copy do) changes or drops them silently.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The dot path (`events.3.metadata.__proto__`) of the first `__proto__`,
 * `constructor` or `prototype` key anywhere in a parsed JSON value, or null.
 * Such a key cannot be stored as sent, so it is refused rather than lost.
 */
export function forbiddenKeyPath(value: unknown, path: readonly string[] = [], depth = 0): string | null {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH * 4) return null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = forbiddenKeyPath(value[index], [...path, String(index)], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return [...path, key].join('.');
    const found = forbiddenKeyPath((value as Record<string, unknown>)[key], [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Whether a JSON text may hold a forbidden key: a cheap scan of the raw text
 * that lets the walk above be skipped for nearly every body. An escaped key
 * (`"\u005f_proto__"`) contains a backslash-u, so it is walked too.
 */
export const mayHoldForbiddenKey = (text: string): boolean =>
  text.includes('__proto__') || text.includes('constructor') || text.includes('prototype') || text.includes('\\u');

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
