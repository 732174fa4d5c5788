// The import arrows docs/architecture.md promises, checked by
// `npm run lint:boundaries` (the first step of `npm test`). Tests are held to
// the same arrows: a test that needs something across a boundary gets it
// from the testing folder on its own side.

/** Files that exist only for tests (never in dist/). */
const TEST_SUPPORT = ['\\.test\\.ts$', '\\.test-helper\\.ts$', '^shared/testing/', '^api/testing/', '^e2e/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shared-imports-a-process',
      comment:
        'shared/ is what every process uses: it never imports api/, worker/, core/ or cli/. Move the code into shared/ or pass it in.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(api|worker|core|cli)/' },
    },
    {
      name: 'core-imports-a-process',
      comment:
        'core/ holds the use-cases and the matcher in feature folders, typed on core/deps.ts: it never imports api/, worker/ or cli/ (a process passes its pieces in).',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '^(api|worker|cli)/' },
    },
    {
      name: 'core-speaks-http',
      comment: 'Use-cases know nothing of HTTP: core/ never imports hono. Status codes and wire shapes are api/ alone.',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '^node_modules/(hono|@hono)/' },
    },
    {
      name: 'core-by-feature',
      comment:
        'core/ is one folder per feature (core/webhooks, core/backtests, ...): a folder of use-cases by kind would scatter a feature again (docs/decisions.md).',
      severity: 'error',
      from: { path: '^core/use-cases/' },
      to: {},
    },
    {
      name: 'api-holds-use-cases',
      comment: 'api/ is HTTP only: a folder of use-cases or a CLI under api/ belongs in core/ or cli/.',
      severity: 'error',
      from: { path: '^api/(use-cases|cli)/' },
      to: {},
    },
    {
      name: 'worker-imports-api',
      comment:
        'The API and the worker meet only in Postgres and Redis: worker/ never imports api/ or cli/. Shared code belongs in core/ or shared/.',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^(api|cli)/' },
    },
    {
      name: 'api-imports-worker',
      comment:
        'The API and the worker meet only in Postgres and Redis: api/ never imports worker/ or cli/. Shared code belongs in core/ or shared/.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^(worker|cli)/' },
    },
    {
      name: 'cli-imports-a-process',
      comment:
        'The CLI is its own entry on core/: it never imports worker/, and of api/ only the published wire shapes (api/routes/**/schema.ts or <verb>-schema.ts, the validation message and page cursors of api/http/) so that --json prints what the API answers.',
      severity: 'error',
      from: { path: '^cli/', pathNot: TEST_SUPPORT },
      to: {
        path: '^(worker|api)/',
        pathNot: ['^api/routes/.+/schema\\.ts$', '^api/routes/.+/[a-z]+-schema\\.ts$', '^api/http/(errors|pagination)\\.ts$'],
      },
    },
    {
      name: 'domain-not-pure',
      comment:
        'shared/domain/ is pure rules: it imports zod and other shared/domain files only (no node: builtins, db, redis, hono, bullmq, config).',
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
      comment:
        'Production code never imports test support (shared/testing, api/testing, e2e/, *.test-helper.ts): it is left out of dist/.',
      severity: 'error',
      from: { path: '^(api|core|cli|worker|shared|client)/', pathNot: TEST_SUPPORT },
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
    // node_modules stays in the graph (not followed): the purity rules look at imports of packages.
    exclude: { path: '^(dist|client/dist|client/node_modules)/' },
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
