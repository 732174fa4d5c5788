import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.js';
import { createLogger } from '../shared/observability/logger.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { useTestData } from '../shared/testing/test-data.js';
import { type RunningWorker, startWorker } from '../worker/start-worker.js';
import { runCli } from './run-cli.test-helper.js';

// `quest-chains workers` and `workers set-partitions`, the built CLI run as an operator runs it, beside
// two workers run in process (one taking its share by lease, one pinned), and the workers' own /metrics.

const { database } = useTestData('workers_cli', { providers: false });
const queuePrefix = `cli-workers-${uniqueSuffix()}`;
const env = { DATABASE_URL: database.url, QUEUE_PREFIX: queuePrefix, MATCHING_PARTITIONS: '8' };
const silent = createLogger({ level: 'silent', name: 'workers-cli-test' });
const configOf = (extra: Record<string, string> = {}) =>
  parseConfig({ ...env, HOST: '127.0.0.1', WORKER_HEALTH_PORT: '0', LOG_LEVEL: 'silent', WORKER_ROLES: 'matching', ...extra });

const running: RunningWorker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((worker) => worker.stop('test')));
});

const cli = async (args: string[], extra: Record<string, string> = {}) => runCli(['--json', ...args], { ...env, ...extra });

describe('quest-chains workers', () => {
  it('lists the live workers with their partitions and lease ages; the workers say the same on /metrics', async () => {
    const leased = await startWorker(configOf(), silent);
    const pinned = await startWorker(configOf({ WORKER_SHARDS: '0,1' }), silent);
    running.push(leased, pinned);
    const view = await eventually(
      async () => {
        const run = await cli(['workers']);
        expect(run.code, run.stderr).toBe(0);
        const parsed = JSON.parse(run.stdout);
        const mine = parsed.workers.find((worker: { id: string }) => worker.id === leased.workerId);
        return mine?.partitions.length === 6 ? parsed : undefined;
      },
      { timeoutMs: 15_000, what: 'the leasing worker to hold partitions 2-7' },
    );
    expect(view).toMatchObject({ partitions: 8, partitions_stored: 8, unconsumed: [], leases_of_gone_workers: [] });
    const byId = new Map(view.workers.map((worker: { id: string }) => [worker.id, worker]));
    expect(byId.get(leased.workerId)).toMatchObject({
      pinned: false,
      pid: process.pid,
      health_port: leased.healthPort,
      partitions: [2, 3, 4, 5, 6, 7].map((partition) => ({
        partition,
        lease_age_ms: expect.any(Number),
        lease_expires_in_ms: expect.any(Number),
      })),
    });
    expect(byId.get(pinned.workerId)).toMatchObject({ pinned: true, partitions: [{ partition: 0 }, { partition: 1 }] });
    expect(view.jobs).toHaveLength(8);

    const human = await runCli(['workers'], env);
    expect(human.stdout).toContain('8 matching partitions, 2 live workers');
    expect(human.stdout).toContain('leased 6: 2-7');
    expect(human.stdout).toContain('pinned 2: 0-1');
    expect(human.stdout).toContain('not consumed: none');

    const metrics = await fetch(`http://127.0.0.1:${leased.healthPort}/metrics`).then((answer) => answer.text());
    expect(metrics).toContain('qcr_worker_partitions_held{by="lease"} 6');
    expect(metrics).toContain('qcr_worker_partitions_held{by="pinned"} 0');
    expect(metrics).toMatch(/qcr_worker_partition_lease_age_seconds\{partition="7"\} \d/);
    // It started alone (all 8), then handed the pinned worker's two over.
    expect(metrics).toContain('qcr_worker_partition_changes_total{change="acquired"} 8');
    expect(metrics).toContain('qcr_worker_partition_changes_total{change="released"} 2');
    const pinnedMetrics = await fetch(`http://127.0.0.1:${pinned.healthPort}/metrics`).then((answer) => answer.text());
    expect(pinnedMetrics).toContain('qcr_worker_partitions_held{by="pinned"} 2');
  });

  it('changes the partition count only once no worker runs and nothing is queued', async () => {
    running.push(await startWorker(configOf(), silent));
    const refused = await cli(['workers', 'set-partitions', '16']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stderr).error).toMatch(/1 worker\(s\) still running .*: stop every worker and API first/);
    await running.pop()!.stop('test');
    const changed = await cli(['workers', 'set-partitions', '16']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toEqual({ partitions: 16, previous: 8 });
    expect(JSON.parse((await cli(['workers'])).stdout)).toMatchObject({ partitions: 16, workers: [] });
    expect((await cli(['workers', 'set-partitions', 'many'])).code).toBe(2);
  });
});
