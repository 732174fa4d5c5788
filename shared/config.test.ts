import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.js';
import { projectRoot } from './db/project-root.js';
import { childProcessEnv } from './testing/service-env.js';

describe('parseConfig', () => {
  it('needs nothing on a machine with local Postgres and Redis', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      // Its own database (created on first start), not the server's maintenance database.
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/quest_chains',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: 3000,
      LOG_LEVEL: 'info',
    });
    expect(config.ADMIN_TOKEN).toBeUndefined(); // admin API off
    // Events kept forever, reads on the primary.
    expect(config.EVENT_RETENTION_MONTHS).toBeUndefined();
    expect(config.DATABASE_READ_URL).toBeUndefined();
  });

  it('reads the retention in whole months and a read replica URL', () => {
    const config = parseConfig({ EVENT_RETENTION_MONTHS: '13', DATABASE_READ_URL: 'postgres://replica:5432/quest_chains' });
    expect(config.EVENT_RETENTION_MONTHS).toBe(13);
    expect(config.DATABASE_READ_URL).toBe('postgres://replica:5432/quest_chains');
  });

  it('treats an empty variable as unset', () => {
    const config = parseConfig({ PORT: '', ADMIN_TOKEN: '' });
    expect(config.PORT).toBe(3000);
    expect(config.ADMIN_TOKEN).toBeUndefined();
  });

  it('runs matching and webhook delivery in one worker unless WORKER_ROLES names one', () => {
    expect([...parseConfig({}).WORKER_ROLES].sort()).toEqual(['matching', 'webhooks']);
    expect([...parseConfig({ WORKER_ROLES: 'webhooks' }).WORKER_ROLES]).toEqual(['webhooks']);
    expect([...parseConfig({ WORKER_ROLES: 'matching' }).WORKER_ROLES]).toEqual(['matching']);
    expect(() => parseConfig({ WORKER_ROLES: 'matching,delivery' })).toThrow(ConfigError);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'not a url'],
    ['ADMIN_TOKEN', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['CREDENTIAL_CACHE_TTL_MS', '60000'],
    ['MIGRATE_ON_START', 'yes'],
    ['EVENT_RETENTION_MONTHS', '0'],
    ['EVENT_RETENTION_MONTHS', '1.5'],
    ['DATABASE_READ_URL', 'replica'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(name);
  });
});

describe('a process started with bad configuration', () => {
  it.each(['api', 'worker'])('%s exits 1 with a message naming the variable', (kind) => {
    const result = spawnSync(process.execPath, [join(projectRoot(), 'dist', kind, 'main.js')], {
      env: childProcessEnv({ PORT: 'not-a-port' }),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT');
  });
});
