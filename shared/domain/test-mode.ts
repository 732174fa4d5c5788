/**
 * Test mode (docs/test-mode.md). Each provider may have a test twin: a
 * provider of its own, whose id is the live provider's with fixed bits
 * flipped. The map is its own inverse, so an id shown to a test caller is
 * turned back into the one it knows with no lookup, and the version and
 * variant bits of the UUID stay as they were.
 */
export const MODES = ['live', 'test'] as const;
export type Mode = (typeof MODES)[number];

// Zero at the version nibble (12) and the variant nibble (16) of the 32 hex digits.
const MASK = '5a3c96e1d2b40f7803a5c6e9b1d2f48e';

/** The test twin's id of a live provider, and the live provider's id of a twin. */
export function twinId(id: string): string {
  const hex = id.replaceAll('-', '').toLowerCase();
  let out = '';
  for (let i = 0; i < 32; i++) out += (parseInt(hex[i]!, 16) ^ parseInt(MASK[i]!, 16)).toString(16);
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`;
}

/**
 * Between the provider ids a caller knows (the live ones) and those its mode
 * stores (a test caller's are the twins'). The map is its own inverse, so one
 * function serves the way in and the way out; use-cases apply it to their
 * inputs and answers, given the caller's `livemode`.
 */
export const providerIdForMode = (id: string, livemode: boolean) => (livemode ? id : twinId(id));

/** The id everyone knows for a provider stored as `storedId` in something of `mode` (a chain, a credential). */
export const shownProviderId = (storedId: string, mode: Mode) => providerIdForMode(storedId, mode === 'live');

/** The mode named by an answer's `livemode`. */
export const modeOf = (livemode: boolean): Mode => (livemode ? 'live' : 'test');

/** Key and secret prefixes: a leaked value says which mode it opens. Keys made before modes existed (`pk_…`) stay valid as live. */
export const KEY_PREFIXES = { live: { key: 'pk_live', secret: 'sk_live' }, test: { key: 'pk_test', secret: 'sk_test' } } as const;
