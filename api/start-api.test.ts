import { describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.js';
import { bufferedStdout, createLogger } from '../shared/observability/logger.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { useTestData } from '../shared/testing/test-data.js';
import { type RunningApi, startApi } from './start-api.js';

// The API process in process, as api/main.ts runs it: its own pool and
// dependencies from the config, listening, and a graceful stop.

const { database } = useTestData('start_api', { providers: false });
const output = bufferedStdout();
const silent = createLogger({ level: 'silent', name: 'start-api-test', destination: output.stream });

describe('startApi', () => {
  it('listens on the port it was given (0: any), answers ready, and stops answering once stopped', async () => {
    const config = parseConfig({
      DATABASE_URL: database.url,
      QUEUE_PREFIX: `start-api-${uniqueSuffix()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    const api: RunningApi = await startApi(config, silent, output);
    const url = `http://127.0.0.1:${api.port}`;
    try {
      expect(api.port).toBeGreaterThan(0);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      await api.stop('test');
    }
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
