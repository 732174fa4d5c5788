/** Fields an error envelope may carry beside its message and code. */
export interface QuestChainErrorDetails {
  param?: string;
  balance?: number;
}

/** The service answered with an error envelope (4xx, or 429/5xx after the retries ran out). */
export class QuestChainApiError extends Error {
  override readonly name = 'QuestChainApiError';
  constructor(
    message: string,
    /** HTTP status. */
    readonly status: number,
    /** Machine-readable code from the envelope, when the body had one. */
    readonly code: string | undefined,
    /** X-Request-Id of the failing answer: quote it when asking the operator. */
    readonly requestId: string | undefined,
    /** The answer's `Retry-After` (429, 503) in milliseconds: when the service asked to be called again. */
    readonly retryAfterMs?: number,
    /** What the envelope states beside the message, when it does. */
    details: QuestChainErrorDetails = {},
  ) {
    super(message);
    if (details.param !== undefined) this.param = details.param;
    if (details.balance !== undefined) this.balance = details.balance;
  }

  /** The request field at fault, as a dot path (`events.3.timestamp`), when one field is. */
  readonly param?: string;
  /** `insufficient_points` only: the user's balance now, in points (below zero after a reversal). */
  readonly balance?: number;

  /** 429 and 5xx: the client already retried; the caller may try again later. Other 4xx: the request must change first. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429;
  }
}

/** No HTTP answer at all (connection refused or reset, DNS, time-out) after every attempt. */
export class QuestChainNetworkError extends Error {
  override readonly name = 'QuestChainNetworkError';
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
  }
}
