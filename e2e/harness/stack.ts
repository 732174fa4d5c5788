import { createTestDatabase, uniqueSuffix, type TestDatabase } from '../../shared/testing/database.js';
import { requestJson } from './http.js';
import { startService, type ServiceProcess } from './service.js';

export const E2E_ADMIN_TOKEN = 'e2e-admin-token-0123456789';

export interface Stack {
  database: TestDatabase;
  api: ServiceProcess;
  workers: ServiceProcess[];
  env: Record<string, string>;
  /** Another worker, with `env` added to the stack's (WORKER_ROLES, say). */
  startWorker(env?: Record<string, string>): Promise<ServiceProcess>;
  http(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; json: any }>;
  createProvider(type: 'platform' | 'advertiser'): Promise<{ id: string; headers: Record<string, string> }>;
  stop(): Promise<void>;
}

/**
 * A real deployment in miniature: its own database and queue prefix, the
 * built API and `workerCount` worker processes, with fast reconciliation and
 * stall detection so crash tests finish quickly.
 */
export async function startStack(label: string, options: { workerCount?: number; env?: Record<string, string> } = {}): Promise<Stack> {
  const database = await createTestDatabase(label);
  const env = {
    DATABASE_URL: database.url,
    QUEUE_PREFIX: `e2e-${uniqueSuffix()}`,
    ADMIN_TOKEN: E2E_ADMIN_TOKEN,
    RECONCILE_INTERVAL_MS: '300',
    RECONCILE_MIN_AGE_MS: '500',
    JOB_LOCK_MS: '2000',
    ...options.env,
  };
  const api = await startService('api', env);
  const workers = await Promise.all(Array.from({ length: options.workerCount ?? 1 }, () => startService('worker', env)));

  const http = (method: string, path: string, request: { body?: unknown; headers?: Record<string, string> } = {}) =>
    requestJson(api.url, method, path, request);

  const admin = { authorization: `Bearer ${E2E_ADMIN_TOKEN}` };

  const stack: Stack = {
    database,
    api,
    workers,
    env,
    async startWorker(extraEnv = {}) {
      const worker = await startService('worker', { ...env, ...extraEnv });
      workers.push(worker);
      return worker;
    },
    http,
    async createProvider(type) {
      const provider = await http('POST', '/admin/v1/providers', { headers: admin, body: { type, name: `${type} ${label}` } });
      const credential = await http('POST', `/admin/v1/providers/${provider.json.data.id}/credentials`, { headers: admin, body: {} });
      return {
        id: provider.json.data.id,
        headers: { 'x-api-key': credential.json.data.key, 'x-api-secret': credential.json.data.secret },
      };
    },
    async stop() {
      await Promise.all([api, ...workers].map((process) => process.stop('SIGTERM')));
      await database.drop();
    },
  };
  return stack;
}

export const adminHeaders = { authorization: `Bearer ${E2E_ADMIN_TOKEN}` };
