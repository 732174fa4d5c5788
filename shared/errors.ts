/**
 * What a use-case or domain rule can refuse, in domain terms. The HTTP layer
 * alone (api/http/errors.ts) decides which status each kind is answered
 * with, so nothing below api/ knows about HTTP.
 */
export type DomainErrorKind =
  /** The input breaks a rule (a field is malformed, names nothing, or contradicts another). */
  | 'invalid_input'
  /** The addressed thing does not exist (for this caller). */
  | 'not_found'
  /** The request is well formed but the current state forbids it (already used, not yet completed). */
  | 'conflict';

/**
 * Every condition a use-case refuses, each with its kind. The code is what
 * callers branch on (docs/errors.md), so a code, once published, keeps its
 * meaning; a new condition gets a new code.
 */
export const DOMAIN_ERROR_KINDS = {
  /** A field breaks a rule of its own or against another field (`param` names it). */
  invalid_field: 'invalid_input',
  /** A field the operation needs is absent. */
  missing_field: 'invalid_input',
  /** `platform_user_id` names no user registered by the calling platform. */
  user_not_registered: 'invalid_input',
  /** `advertiser_id` is not an active advertiser. */
  advertiser_not_active: 'invalid_input',
  /** `task_id` names no task of the calling platform. */
  task_not_found: 'invalid_input',
  /** `quest_chain_id` names no chain of the calling platform. */
  quest_chain_not_found: 'invalid_input',
  /** The connection token is unknown or was issued for another advertiser. */
  link_token_invalid: 'invalid_input',
  /** The connection token expired before this link was made. */
  link_token_expired: 'invalid_input',
  /** The webhook URL is not allowed: not https, or its host is (or resolves to) a loopback, private or link-local address. */
  webhook_url_refused: 'invalid_input',
  /** The provider has as many webhook endpoints as allowed (10). */
  webhook_endpoint_limit: 'invalid_input',
  /** The connection token already linked another advertiser user id. */
  link_token_used: 'conflict',
  /** The advertiser user id is already linked to another user of the platform. */
  advertiser_user_already_linked: 'conflict',
  /** The user is already linked to another advertiser user id of this advertiser. */
  user_already_linked: 'conflict',
  /** The task or chain is not completed, or the chain has no reward. */
  reward_not_claimable: 'conflict',
  /** The reward is completed but under its chain's hold (reward_hold_seconds) until the time named. */
  reward_on_hold: 'conflict',
  /** The chain's budget cannot cover this reward's value (docs/budgets.md). */
  budget_exhausted: 'conflict',
  /** This reward has been claimed by as many users as the chain's max_claims_per_reward allows. */
  reward_cap_reached: 'conflict',
  /** Every prize of the mystery box is out of stock (docs/mystery-boxes.md); claimable again once restocked. */
  out_of_stock: 'conflict',
  /** The chain's reward is not a mystery box with prizes: it has no draws (nor seed to rotate, nor prize to restock). */
  not_a_mystery_box: 'conflict',
  /** The user's points balance is below the amount of a spend (§18.4); the error carries the balance. */
  insufficient_points: 'conflict',
  /** The spend's idempotency key was used before for a spend of another amount (§18.4). */
  idempotency_key_reused: 'conflict',
  /** The addressed resource does not exist. */
  not_found: 'not_found',
} as const satisfies Record<string, DomainErrorKind>;

export type DomainErrorCode = keyof typeof DOMAIN_ERROR_KINDS;

export class DomainError extends Error {
  readonly kind: DomainErrorKind;

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** The one request field at fault, as a dot path (`tasks.2.condition_before_timestamp`). */
    readonly param?: string,
    /** Figures the refusal states beside its message (`insufficient_points`: the balance). */
    readonly details?: Readonly<Record<string, number>>,
  ) {
    super(message);
    this.name = 'DomainError';
    this.kind = DOMAIN_ERROR_KINDS[code];
  }
}

type CodeOfKind<K extends DomainErrorKind> = {
  [C in DomainErrorCode]: (typeof DOMAIN_ERROR_KINDS)[C] extends K ? C : never;
}[DomainErrorCode];

/** A refused input; `invalid_field` unless a more precise code applies. */
export const invalidInput = (message: string, param?: string, code: CodeOfKind<'invalid_input'> = 'invalid_field') =>
  new DomainError(code, message, param);
export const conflict = (code: CodeOfKind<'conflict'>, message: string, param?: string) => new DomainError(code, message, param);
export const notFound = (message: string, param?: string) => new DomainError('not_found', message, param);
