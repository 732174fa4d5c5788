/**
 * The one error model. Every failure the service answers with is an AppError
 * whose code maps to exactly one HTTP status (api/http/errors.ts) and one
 * OpenAPI error response, so no route assembles error JSON by hand.
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

export const badRequest = (message: string) => new AppError('bad_request', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const notFound = (message: string) => new AppError('not_found', message);
