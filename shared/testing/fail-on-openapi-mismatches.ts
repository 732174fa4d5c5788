import { afterAll, afterEach } from 'vitest';
import { takeOpenApiMismatches } from './openapi-mismatches.js';

// A vitest setup file (vitest.config.ts): a test, or a file's beforeAll, that
// received an answer the served documents do not allow fails, even where a
// retry loop caught the checked call's own error.
function failOnMismatches() {
  const mismatches = takeOpenApiMismatches();
  if (mismatches.length > 0) throw new Error(`answers that do not match the served OpenAPI documents:\n${mismatches.join('\n')}`);
}

afterEach(failOnMismatches);
afterAll(failOnMismatches);
