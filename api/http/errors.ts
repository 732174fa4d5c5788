import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { DomainError, type DomainErrorKind } from '../../shared/errors.js';
import type { Logger } from '../../shared/observability/logger.js';
import { isTimeLimitError } from '../../shared/db/query-errors.js';
import { isConnectionError } from '../../shared/db/connection-loss.js';

/**
 * The one error model of the HTTP layer. Every failure the service answers
 * with is an AppError whose code maps to exactly one status and one OpenAPI
 * error response, so no route assembles error JSON by hand.
 */
export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): (typeof errorStatus)[ErrorCode] {
    return errorStatus[this.code];
  }
}

/** How each kind of domain refusal is answered. */
const domainErrorCodes: Record<DomainErrorKind, ErrorCode> = {
  invalid_input: 'bad_request',
  not_found: 'not_found',
  conflict: 'conflict',
};

export const fromDomainError = (error: DomainError) => new AppError(domainErrorCodes[error.kind], error.message);

export function errorResponse(c: Context, error: AppError) {
  return c.json({ success: false as const, error: error.message, code: error.code }, error.status as ContentfulStatusCode);
}

const httpStatusCodes: Partial<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
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
    // Postgres unreachable or restarting: the pool reconnects by itself, so the caller should retry.
    if (isConnectionError(error)) {
      logger.warn({ err: error, path: c.req.path, method: c.req.method }, 'database unavailable');
      return errorResponse(c, new AppError('unavailable', 'The service is temporarily unavailable; try again'));
    }
    // A statement stopped by a session time limit (shared/db/client.ts): busy, not broken.
    if (isTimeLimitError(error)) {
      logger.warn({ err: error, path: c.req.path, method: c.req.method }, 'statement stopped by a time limit');
      return errorResponse(c, new AppError('unavailable', 'The service is busy; try again'));
    }
    // Anything else is our own failure: log it in full, answer without internals.
    logger.error({ err: error, path: c.req.path, method: c.req.method }, 'unhandled error');
    return errorResponse(c, new AppError('internal', 'The operation could not be completed'));
  };
}

export const notFoundHandler: NotFoundHandler = (c) =>
  errorResponse(c, new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`));

/** "field.path: message" for each problem, so the caller sees which field is wrong. */
export function describeZodError(error: ZodError, root = 'body'): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : root}: ${issue.message}`)
    .join('; ');
}

/** The defaultHook of every OpenAPIHono router: validation failures become 400 in the envelope. */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target: string },
  c: Context,
) {
  if (!result.success) {
    const root = result.target === 'json' ? 'body' : result.target;
    return errorResponse(c, new AppError('bad_request', describeZodError(result.error, root)));
  }
  return undefined;
}
