import type { Redis } from 'ioredis';
import { cpuReading, cpuSeconds, cpuSecondsSince } from '../../e2e/harness/proc-stats.js';
import type { Database } from '../../shared/db/client.js';
import { backendPids } from '../../shared/db/server-admin.js';

export interface CpuUse {
  api: number;
  postgres: number;
  redis: number;
}

type Snapshot = { api: Map<number, number>; postgres: Map<number, number>; redis: number };

/**
 * CPU seconds used by the API process, Postgres and Redis between `start()`
 * and the returned `stop()`, read from /proc. Postgres counts the backends of
 * the bench database plus the server's own processes (WAL writer,
 * checkpointer, …, which do our commits' work too), never the backends of
 * other databases. Postgres and Redis are shared with whatever else runs on
 * the machine, so their figures include its share of the common processes.
 */
export class CpuMeter {
  private redisPid: number | null = null;

  constructor(
    private readonly db: Database,
    private readonly databaseName: string,
    private readonly redis: Redis,
  ) {}

  /**
   * `serving`: the process answering the load (the API, or a baseline's server), or every process that does (an
   * API launcher and its processes); their CPU together is the `api` figure.
   */
  async start(serving: number | readonly number[]): Promise<() => Promise<CpuUse>> {
    const servingPids = typeof serving === 'number' ? [serving] : serving;
    const before = await this.snapshot(servingPids);
    return async () => {
      const after = await this.snapshot(servingPids);
      return {
        api: cpuSecondsSince(before.api, after.api),
        postgres: cpuSecondsSince(before.postgres, after.postgres),
        redis: after.redis - before.redis,
      };
    };
  }

  private async snapshot(servingPids: readonly number[]): Promise<Snapshot> {
    const postgres = cpuReading(await backendPids(this.db, this.databaseName));
    return { api: cpuReading(servingPids), postgres, redis: cpuSeconds(await this.redisProcess()) };
  }

  private async redisProcess(): Promise<number> {
    if (this.redisPid === null) {
      const info = await this.redis.info('server');
      this.redisPid = Number(/process_id:(\d+)/.exec(info)?.[1] ?? Number.NaN);
    }
    return this.redisPid;
  }
}
