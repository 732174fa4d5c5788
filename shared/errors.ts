/**
 * What a use-case or domain rule can refuse, in domain terms. The HTTP layer
 * alone (api/http/errors.ts) decides which status and wire code each kind is
 * answered with, so nothing below api/ knows about HTTP.
 */
export type DomainErrorKind =
  /** The input breaks a rule (a field is malformed, names nothing, or contradicts another). */
  | 'invalid_input'
  /** The addressed thing does not exist (for this caller). */
  | 'not_found'
  /** The request is well formed but the current state forbids it (already used, not yet completed). */
  | 'conflict';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalidInput = (message: string) => new DomainError('invalid_input', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const notFound = (message: string) => new DomainError('not_found', message);
