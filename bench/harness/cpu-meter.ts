import type { Redis } from 'ioredis';
import { cpuSeconds } from '../../e2e/harness/proc-stats.js';
import type { Database } from '../../shared/db/client.js';
import { backendPids } from '../../shared/db/server-admin.js';

export interface CpuUse {
  api: number;
  postgres: number;
  redis: number;
}

type Snapshot = { api: number; postgres: Map<number, number>; redis: number };

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

  /** `servingPid`: the process answering the load (the API, or a baseline's server); its CPU is the `api` figure. */
  async start(servingPid: number): Promise<() => Promise<CpuUse>> {
    const before = await this.snapshot(servingPid);
    return async () => {
      const after = await this.snapshot(servingPid);
      let postgresSeconds = 0;
      for (const [pid, seconds] of after.postgres) postgresSeconds += seconds - (before.postgres.get(pid) ?? 0);
      return { api: after.api - before.api, postgres: postgresSeconds, redis: after.redis - before.redis };
    };
  }

  private async snapshot(servingPid: number): Promise<Snapshot> {
    const postgresCpu = new Map<number, number>();
    for (const pid of await backendPids(this.db, this.databaseName)) {
      const seconds = cpuSeconds(pid);
      if (Number.isFinite(seconds)) postgresCpu.set(pid, seconds);
    }
    return { api: cpuSeconds(servingPid), postgres: postgresCpu, redis: cpuSeconds(await this.redisProcess()) };
  }

  private async redisProcess(): Promise<number> {
    if (this.redisPid === null) {
      const info = await this.redis.info('server');
      this.redisPid = Number(/process_id:(\d+)/.exec(info)?.[1] ?? Number.NaN);
    }
    return this.redisPid;
  }
}
