import type { Context } from 'hono';
import type { Caller } from '../auth/caller.js';

/**
 * The one place an answer learns its `livemode` (docs/test-mode.md): the
 * caller authentication put on the context once the credential's secret was
 * verified. Both envelopes read it here, the success one (`ok()`,
 * envelope.ts) and the error one (errors.ts), so a route never writes the
 * field and cannot forget it. Undefined before a credential is verified (a
 * 401 cannot say) and on admin, health and operator answers, which are no
 * credential's.
 */
export function answerLivemode(c: Context): boolean | undefined {
  // c.get, not c.var: c.var copies every variable into a new object on each access.
  return (c.get('caller') as Caller | undefined)?.livemode;
}
