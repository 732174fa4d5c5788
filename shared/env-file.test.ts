import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadEnvFileIfPresent } from './env-file.js';

const dir = mkdtempSync(join(tmpdir(), 'qcr-env-'));
const names = ['QCR_ENV_TEST_FROM_FILE', 'QCR_ENV_TEST_SET_BEFORE'] as const;

afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  for (const name of names) delete process.env[name];
});

describe('.env', () => {
  it('fills variables that are unset, never overrides one the environment sets', () => {
    const file = join(dir, '.env');
    writeFileSync(file, '# a comment\nQCR_ENV_TEST_FROM_FILE="from file"\nQCR_ENV_TEST_SET_BEFORE=from-file\n');
    process.env.QCR_ENV_TEST_SET_BEFORE = 'from-environment';
    expect(loadEnvFileIfPresent(file)).toBe(true);
    expect(process.env.QCR_ENV_TEST_FROM_FILE).toBe('from file');
    expect(process.env.QCR_ENV_TEST_SET_BEFORE).toBe('from-environment');
  });

  it('is optional: no file, nothing read and no error', () => {
    expect(loadEnvFileIfPresent(join(dir, 'missing.env'))).toBe(false);
  });

  it('is still an error when the file exists but cannot be read', () => {
    expect(() => loadEnvFileIfPresent(dir)).toThrow();
  });
});
