import { expect } from 'vitest';
import { adminHeaders } from '../../shared/testing/admin-token.js';
import { eventually } from '../../shared/testing/eventually.js';
import type { Stack } from '../harness/stack.js';

/** Starts a backtest of `draft` over the admin API and answers it once completed (its `data`). */
export async function runBacktest(stack: Stack, draft: unknown, what = 'the backtest') {
  const started = await stack.call('POST', '/admin/v1/quest-chains/backtest', { headers: adminHeaders, body: draft });
  expect(started.status, JSON.stringify(started.json)).toBe(202);
  return eventually(
    async () => {
      const read = await stack.call('GET', `/admin/v1/backtests/${started.json.data.backtest_id}`, { headers: adminHeaders });
      return read.json.data.status === 'completed' ? read.json.data : undefined;
    },
    { what, timeoutMs: 30_000 },
  );
}
