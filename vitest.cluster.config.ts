import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster`: the service on a local 6-node Redis Cluster
 * (scripts/redis-cluster.sh, started by the tests themselves on free ports).
 * Kept out of `npm test`: it needs redis-server's cluster mode and a few minutes.
 */
export default defineConfig({
  test: {
    reporters: ['default', './shared/testing/summary-reporter.ts'],
    pool: 'forks',
    maxWorkers: 1,
    include: ['**/*.cluster.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**'],
    testTimeout: 180_000,
    hookTimeout: 90_000,
    globalSetup: ['./shared/testing/global-setup.ts'],
    setupFiles: ['./shared/testing/fail-on-openapi-mismatches.ts'],
  },
});
