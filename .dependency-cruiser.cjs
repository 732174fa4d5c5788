// The import arrows docs/architecture.md promises, checked by
// `npm run lint:boundaries` (the first step of `npm test`). Tests are held to
// the same arrows: a test that needs something across a boundary gets it
// from the testing folder on its own side.

/** Files that exist only for tests (never in dist/). */
const TEST_SUPPORT = ['\\.test\\.ts$', '\\.test-helper\\.ts$', '^shared/testing/', '^api/testing/', '^api/e2e/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shared-imports-a-process',
      comment: 'shared/ is what both processes use: it never imports api/ or worker/. Move the code into shared/ or pass it in.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(api|worker)/' },
    },
    {
      name: 'worker-imports-api',
      comment: 'The API and the worker meet only in Postgres and Redis: worker/ never imports api/. Shared code belongs in shared/.',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^api/' },
    },
    {
      name: 'api-imports-worker',
      comment: 'The API and the worker meet only in Postgres and Redis: api/ never imports worker/. Shared code belongs in shared/.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^worker/' },
    },
    {
      name: 'domain-not-pure',
      comment: 'shared/domain/ is pure rules: it imports zod and other shared/domain files only (no node: builtins, db, redis, hono, bullmq, config).',
      severity: 'error',
      from: { path: '^shared/domain/', pathNot: TEST_SUPPORT },
      to: { pathNot: ['^shared/domain/', '^node_modules/zod/'] },
    },
    {
      name: 'domain-test-not-pure',
      comment: 'Tests of shared/domain/ stay pure too: zod, vitest, fast-check and shared/domain files only.',
      severity: 'error',
      from: { path: '^shared/domain/.*\\.(test|test-helper)\\.ts$' },
      to: { pathNot: ['^shared/domain/', '^node_modules/(zod|vitest|@vitest|fast-check)/'] },
    },
    {
      name: 'production-imports-test-support',
      comment: 'Production code never imports test support (shared/testing, api/testing, api/e2e, *.test-helper.ts): it is left out of dist/.',
      severity: 'error',
      from: { path: '^(api|worker|shared|client)/', pathNot: TEST_SUPPORT },
      to: { path: TEST_SUPPORT },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles (type-only ones included) make the layers impossible to read bottom-up: break the cycle.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|client/dist|client/node_modules)/' },
    tsPreCompilationDeps: true,
    // Resolves the `.js` specifiers of NodeNext ESM to their `.ts` sources.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
