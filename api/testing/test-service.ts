import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../shared/config.js';
import { emptyHandle, type TestData, type TestDataOptions, useTestData } from '../../shared/testing/test-data.js';
import { createTestApp, type TestApp } from './test-app.js';

export interface TestService extends TestData {
  /** The real app in process against the file's database (`api.call`, `api.deps`, `api.adminHeaders`). */
  api: TestApp;
}

export interface TestServiceOptions extends TestDataOptions {
  /** Environment overrides for the app's config. */
  config?: Partial<Record<keyof Config, string>>;
}

/**
 * One line of setup for an API test file:
 *
 *   const { database, api, platform, advertiser } = useTestService('event_dedup');
 *
 * the file's own database and providers (`useTestData`) plus the in-process
 * app on its own queue prefix, closed after the file's last test. The fields
 * are filled in by `beforeAll` (see `emptyHandle`). Chains: api/testing/chains.ts.
 */
export function useTestService(label: string, options: TestServiceOptions = {}): TestService {
  const data = useTestData(label, options);
  const service: TestService = { ...data, api: emptyHandle() };
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await createTestApp(data.database, options.config);
    Object.assign(service.api, app);
  });
  afterAll(async () => {
    await app?.close();
  });
  return service;
}
