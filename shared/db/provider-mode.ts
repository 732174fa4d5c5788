import { sql } from 'drizzle-orm';
import { providers } from './schema/index.js';

/**
 * The one rule of a mode (docs/test-mode.md): a test twin names the live
 * provider it belongs to, a live provider names none. Selected beside the
 * provider row wherever a mode is stated: a credential's (the caller's
 * `livemode`, decided once at authentication, and the admin's view of it) and
 * a webhook endpoint's (each message's `livemode`). A chain's `mode` column is
 * the operator's choice when it was made, which picked its providers' rows.
 */
export const providerIsLive = () => sql<boolean>`${providers.liveProviderId} is null`;
