import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { providerIdForMode, shownProviderId, twinId } from './test-mode.js';

describe('twinId', () => {
  it('is its own inverse, never the id itself, and keeps the UUID version and variant', () => {
    fc.assert(
      fc.property(fc.uuid({ version: 4 }), (id) => {
        const twin = twinId(id);
        expect(twinId(twin)).toBe(id.toLowerCase());
        expect(twin).not.toBe(id.toLowerCase());
        expect(twin).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }),
    );
  });
});

describe('providerIdForMode', () => {
  it("keeps a live caller's ids, maps a test caller's to the twins and back", () => {
    fc.assert(
      fc.property(fc.uuid({ version: 4 }), (id) => {
        expect(providerIdForMode(id, true)).toBe(id);
        expect(providerIdForMode(id, false)).toBe(twinId(id));
        expect(providerIdForMode(providerIdForMode(id, false), false)).toBe(id.toLowerCase());
        expect([shownProviderId(id, 'live'), shownProviderId(id, 'test')]).toEqual([id, twinId(id)]);
      }),
    );
  });
});
