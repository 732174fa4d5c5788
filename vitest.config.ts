import { defineConfig } from 'vitest/config';

/**
 * Unit tests touch no Postgres, Redis or child process: pure rules and
 * in-memory pieces. They need no build and no database (`npm run test:unit`).
 * Everything else is an integration test. A file missing from this list still
 * runs, as an integration test.
 */
const UNIT_TESTS = [
  'shared/domain/**/*.test.ts',
  'worker/matching/batcher.test.ts',
  'worker/webhooks/matching-first.test.ts',
  '**/active-answer-cache.test.ts',
  'docs/**/*.test.ts',
  'bench/**/*.test.ts',
  'e2e/support/world/zipf.test.ts',
  'e2e/support/world/world-chains.test.ts',
  'e2e/support/world/world-options.test.ts',
  'shared/async/coalesce.test.ts',
  'shared/queue/partition-assignment.test.ts',
  'api/routes/mount-plan.test.ts',
];

/**
 * Tests of the built processes as an operator or integrator runs them (the
 * API and worker started as child processes, the CLI run as a command): the
 * slowest files, in a project of their own so `npm test` stays near five
 * minutes on two cores (`npm run test:e2e`; `.ci/run` runs both).
 */
const PROCESS_TESTS = ['e2e/**/*.e2e.test.ts', 'cli/**/*.test.ts'];

/** What the integration and e2e projects share: Postgres, Redis and the built processes. */
const WITH_SERVICES = {
  // End-to-end tests spawn the built processes: builds dist/ only when it is older than the sources.
  globalSetup: ['./shared/testing/global-setup.ts'],
  // Black-box answers that broke the served OpenAPI documents fail their test (`checkDocuments`, shared/testing/api-client.ts).
  setupFiles: ['./shared/testing/fail-on-openapi-mismatches.ts'],
};

export default defineConfig({
  test: {
    reporters: ['default', './shared/testing/summary-reporter.ts'],
    pool: 'forks',
    // Two cores: more files at once only makes each slower and flakier.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT_TESTS },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [
            'api/**/*.test.ts',
            'core/**/*.test.ts',
            'cli/**/*.test.ts',
            'worker/**/*.test.ts',
            'shared/**/*.test.ts',
            'client/**/*.test.ts',
            'e2e/**/*.test.ts',
          ],
          // *.cluster.test.ts need a Redis Cluster: `npm run test:cluster` (vitest.cluster.config.ts).
          exclude: ['**/node_modules/**', '**/*.cluster.test.ts', ...UNIT_TESTS, ...PROCESS_TESTS],
          ...WITH_SERVICES,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: PROCESS_TESTS,
          exclude: ['**/node_modules/**', '**/*.cluster.test.ts'],
          ...WITH_SERVICES,
        },
      },
    ],
  },
});
