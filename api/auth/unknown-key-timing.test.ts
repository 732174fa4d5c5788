import { describe, expect, it, vi } from 'vitest';
import { useTestService } from '../testing/test-service.js';

// The secret is verified whether or not the key exists (against a hash nobody
// holds when it does not), so an unknown key and a wrong secret do the same
// work. Checked by what is called, not by the clock (the machine is shared).
const verified = vi.hoisted(() => [] as { storedHash: string | null | undefined }[]);
vi.mock('../../shared/auth/secrets.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../shared/auth/secrets.js')>();
  return {
    ...original,
    verifySecret: (presented: string, storedHash: string | null | undefined) => {
      verified.push({ storedHash });
      return original.verifySecret(presented, storedHash);
    },
  };
});

const { api, platform } = useTestService('unknown_key_timing');
const read = (headers: Record<string, string>) => api.call('GET', '/v1/quest-chains/active/x', { headers });

describe('unknown key and wrong secret', () => {
  it('verify a secret in both cases, and both answer the same 401', async () => {
    verified.length = 0;
    const unknown = await read({ 'x-api-key': 'pk_unknown', 'x-api-secret': 'sk_guess' });
    expect(verified).toEqual([{ storedHash: undefined }]);

    verified.length = 0;
    const wrong = await read({ 'x-api-key': platform.key, 'x-api-secret': 'sk_guess' });
    expect(verified).toHaveLength(1);
    expect(verified[0]!.storedHash).toMatch(/^[0-9a-f]{64}$/);

    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.json).toEqual(wrong.json);
  });
});
