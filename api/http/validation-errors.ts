import type { ZodError } from 'zod';

type Issue = ZodError['issues'][number];

/** What one failed validation is answered with: the lead issue's code and field, and a message naming each problem. */
export interface ValidationFailure {
  code: 'invalid_field' | 'missing_field' | 'unknown_field';
  param: string | undefined;
  message: string;
}

const MAX_DESCRIBED = 5;

/**
 * Turns zod's issues into one failure. Unknown fields lead: a typo
 * (`userId` for `user_id`) also leaves the real field missing, and the
 * unknown name is the one that tells the caller what they got wrong.
 * `options.value` is the value that was validated, to tell an absent field
 * from a present one of the wrong type (zod reports both as invalid_type);
 * `options.at` is where that value sits in the request (`events.3`).
 */
export function describeValidationFailure(error: ZodError, options: DescribeOptions = {}): ValidationFailure {
  const root = options.at ?? options.root ?? 'body';
  const problems = error.issues.flatMap((issue) => describeIssue(issue, options));
  const lead = problems.find((problem) => problem.code === 'unknown_field') ?? problems[0];
  const ordered = lead ? [lead, ...problems.filter((problem) => problem !== lead)] : [];
  const message = ordered
    .slice(0, MAX_DESCRIBED)
    .map((problem) => `${problem.param ?? root}: ${problem.text}`)
    .join('; ');
  return { code: lead?.code ?? 'invalid_field', param: lead?.param, message: message || `${root}: invalid` };
}

/** "field.path: message" for each problem (the CLI's wording of a failed parse). */
export function describeZodError(error: ZodError, root = 'body'): string {
  return describeValidationFailure(error, { root }).message;
}

export interface DescribeOptions {
  /** The validated value (absent: absent fields are not told apart). */
  value?: unknown;
  /** What to call the value itself when an issue has no path (default `body`). */
  root?: string;
  /** The value's own path in the request, prefixed to every param. */
  at?: string;
}

interface Problem {
  code: ValidationFailure['code'];
  param: string | undefined;
  text: string;
}

function describeIssue(issue: Issue, options: DescribeOptions): Problem[] {
  const dotPath = (path: readonly PropertyKey[]) => {
    const full = options.at === undefined ? path : [options.at, ...path];
    return full.length > 0 ? full.map(String).join('.') : undefined;
  };
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ code: 'unknown_field', param: dotPath([...issue.path, key]), text: 'unknown field' }));
  }
  const param = dotPath(issue.path);
  if (
    issue.code === 'invalid_type' &&
    'value' in options &&
    issue.path.length > 0 &&
    valueAt(options.value, issue.path) === undefined
  ) {
    return [{ code: 'missing_field', param, text: 'required' }];
  }
  return [{ code: 'invalid_field', param, text: issue.message }];
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
