import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { isConnectionError } from '../../shared/db/connection-loss.js';
import { isTimeLimitError } from '../../shared/db/query-errors.js';
import { DOMAIN_ERROR_KINDS, DomainError, type DomainErrorCode, type DomainErrorKind } from '../../shared/errors.js';
import type { Logger } from '../../shared/observability/logger.js';
import { answerLivemode } from './livemode.js';
import { describeValidationFailure } from './validation-errors.js';

export { describeZodError } from './validation-errors.js';

/** The status each kind of domain refusal is answered with. */
const domainKindStatus = { invalid_input: 400, not_found: 404, conflict: 409 } as const satisfies Record<DomainErrorKind, number>;

type DomainStatuses = { [C in DomainErrorCode]: (typeof domainKindStatus)[(typeof DOMAIN_ERROR_KINDS)[C]] };

const domainStatuses = Object.fromEntries(
  Object.entries(DOMAIN_ERROR_KINDS).map(([code, kind]) => [code, domainKindStatus[kind]]),
) as DomainStatuses;

/**
 * The one error model of the HTTP layer: every code the service answers
 * with and its one status (docs/errors.md is the same table in words, and a
 * test holds the two together). Codes name the condition, not the status, so
 * a caller can branch on them; the use-cases' codes come from shared/errors.ts.
 */
export const errorStatus = {
  invalid_json: 400,
  unknown_field: 400,
  ...domainStatuses,
  missing_credentials: 401,
  invalid_credentials: 401,
  invalid_live_token: 401,
  credential_inactive: 403,
  provider_inactive: 403,
  wrong_provider_type: 403,
  permission_missing: 403,
  test_mode_only: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  too_many_streams: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export type ErrorStatus = (typeof errorStatus)[ErrorCode];

/** Every code, by status (a stable sort: the table's order within a status); docs/errors.md lists them in this order. */
export const ERROR_CODES = (Object.keys(errorStatus) as ErrorCode[]).sort((a, b) => errorStatus[a] - errorStatus[b]) as [
  ErrorCode,
  ...ErrorCode[],
];

/** The codes answered with `status`, in table order (the OpenAPI enum of that response). */
export const codesForStatus = (status: number) => ERROR_CODES.filter((code) => errorStatus[code] === status);

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The one request field at fault, as a dot path (`events.3.timestamp`). */
    readonly param?: string,
    /** Figures the answer states beside the message (`insufficient_points`: `balance`). */
    readonly details?: Readonly<Record<string, number>>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): ErrorStatus {
    return errorStatus[this.code];
  }
}

const fromDomainError = (error: DomainError) => new AppError(error.code, error.message, error.param, error.details);

/** Every error answer, in the one envelope; `livemode` once the credential is verified (api/http/livemode.ts). */
export function errorResponse(c: Context, error: AppError) {
  const livemode = answerLivemode(c);
  const body = {
    success: false as const,
    ...(livemode === undefined ? {} : { livemode }),
    error: error.message,
    code: error.code,
    ...(error.param !== undefined ? { param: error.param } : {}),
    ...error.details,
  };
  return c.json(body, error.status as ContentfulStatusCode);
}

// Hono's own exceptions (its JSON validator's parse failure, mainly) in our codes.
const httpStatusCodes: Partial<Record<number, ErrorCode>> = {
  400: 'invalid_json',
  401: 'invalid_credentials',
  403: 'permission_missing',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export function createErrorHandler(logger: Logger): ErrorHandler {
  return (error, c) => {
    if (error instanceof AppError) return errorResponse(c, error);
    if (error instanceof DomainError) return errorResponse(c, fromDomainError(error));
    if (error instanceof HTTPException) {
      const code = httpStatusCodes[error.status];
      if (code) {
        const message = code === 'unsupported_media_type' ? 'Content-Type must be application/json' : error.message;
        return errorResponse(c, new AppError(code, message || code));
      }
    }
    // A statement stopped by a session time limit (shared/db/client.ts): busy, not broken.
    if (isTimeLimitError(error)) {
      logger.warn({ err: error, path: c.req.path, method: c.req.method }, 'statement stopped by a time limit');
      return errorResponse(c, new AppError('unavailable', 'The service is busy; try again'));
    }
    // Postgres unreachable or restarting: the pool reconnects by itself, so the caller should retry.
    if (isConnectionError(error)) {
      logger.warn({ err: error, path: c.req.path, method: c.req.method }, 'database unavailable');
      return errorResponse(c, new AppError('unavailable', 'The service is temporarily unavailable; try again'));
    }
    // Anything else is our own failure: log it in full, answer without internals.
    logger.error({ err: error, path: c.req.path, method: c.req.method }, 'unhandled error');
    return errorResponse(c, new AppError('internal', 'The operation could not be completed'));
  };
}

export const notFoundHandler: NotFoundHandler = (c) =>
  errorResponse(c, new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`));

/** The defaultHook of every OpenAPIHono router: validation failures become 400 in the envelope, naming the field. */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target: string; data?: unknown },
  c: Context,
) {
  if (!result.success) {
    const root = result.target === 'json' ? 'body' : result.target;
    const failure = describeValidationFailure(result.error, { value: result.data, root });
    return errorResponse(c, new AppError(failure.code, failure.message, failure.param));
  }
  return undefined;
}
