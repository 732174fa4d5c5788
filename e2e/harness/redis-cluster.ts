import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { projectRoot } from '../../shared/db/project-root.js';
import { eventually } from '../../shared/testing/eventually.js';

const run = promisify(execFile);

interface ClusterNode {
  id: string;
  port: number;
  role: 'master' | 'replica';
  /** A replica's master id. */
  masterId: string | null;
  /** A master's slot ranges. */
  slots: [number, number][];
}

export interface LocalCluster {
  /** REDIS_URL for REDIS_CLUSTER=true: every node, comma-separated. */
  url: string;
  ports: number[];
  nodes(): Promise<ClusterNode[]>;
  /** The master currently owning `key`'s hash slot. */
  masterOf(key: string): Promise<ClusterNode>;
  /** CLUSTER FAILOVER on a replica of the master owning `key`'s slot; resolves once that replica is its master. */
  failover(key: string): Promise<{ from: ClusterNode; to: ClusterNode }>;
  /** Moves `key`'s hash slot (holding no keys) to another master; resolves once every node agrees. */
  moveSlot(key: string): Promise<{ from: ClusterNode; to: ClusterNode }>;
  /** Every node stopped (scripts/redis-cluster.sh down): an outage of the whole cluster. */
  down(): Promise<void>;
  /** The nodes started again, empty (nothing is persisted); resolves once the cluster state is ok. */
  up(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A 6-node Redis Cluster (3 masters, 3 replicas) of the test's own, started
 * and stopped with scripts/redis-cluster.sh in a directory of its own, on
 * free ports (never 6379's Redis).
 */
export async function startLocalCluster(): Promise<LocalCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'qcr-cluster-'));
  const script = join(projectRoot(), 'scripts', 'redis-cluster.sh');
  const env = { ...process.env, REDIS_CLUSTER_DIR: join(dir, 'nodes') };
  const cli = (command: string) => run('bash', [script, command], { env, timeout: 60_000 });
  const { stdout } = await cli('start').catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const url = stdout.trim().split('\n').at(-1)!;
  const ports = url.split(',').map((node) => Number(new URL(node).port));

  const ask = async <T>(port: number, command: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    try {
      await redis.connect();
      return await command(redis);
    } finally {
      redis.disconnect();
    }
  };

  async function nodes(): Promise<ClusterNode[]> {
    for (const port of ports) {
      const text = await ask(port, (redis) => redis.call('cluster', 'nodes') as Promise<string>).catch(() => null);
      if (text === null) continue;
      return text
        .trim()
        .split('\n')
        .filter((line) => !line.includes('fail') && !line.includes('disconnected'))
        .map((line) => {
          const [id, address, flags, master, , , , , ...slots] = line.split(' ');
          return {
            id: id!,
            port: Number(address!.split('@')[0]!.split(':')[1]),
            role: flags!.includes('master') ? 'master' : 'replica',
            masterId: master === '-' ? null : master!,
            slots: slots
              .filter((s) => !s.startsWith('['))
              .map((range) => {
                const [from, to] = range.split('-').map(Number);
                return [from!, to ?? from!] as [number, number];
              }),
          } satisfies ClusterNode;
        });
    }
    throw new Error('no cluster node answers');
  }

  async function masterOf(key: string): Promise<ClusterNode> {
    const slot = await ask(ports[0]!, (redis) => redis.call('cluster', 'keyslot', key) as Promise<number>);
    const master = (await nodes()).find(
      (node) => node.role === 'master' && node.slots.some(([from, to]) => slot >= from && slot <= to),
    );
    if (!master) throw new Error(`no master owns slot ${slot}`);
    return master;
  }

  return {
    url,
    ports,
    nodes,
    masterOf,
    async failover(key) {
      const from = await masterOf(key);
      const replica = (await nodes()).find((node) => node.role === 'replica' && node.masterId === from.id);
      if (!replica) throw new Error(`master ${from.port} has no replica`);
      await ask(replica.port, (redis) => redis.call('cluster', 'failover'));
      await eventually(async () => ((await masterOf(key)).id === replica.id ? true : undefined), {
        timeoutMs: 20_000,
        what: `replica ${replica.port} to take over`,
      });
      return { from, to: { ...replica, role: 'master' } };
    },
    async moveSlot(key) {
      const slot = await ask(ports[0]!, (redis) => redis.call('cluster', 'keyslot', key) as Promise<number>);
      const from = await masterOf(key);
      // Masters that own slots: just after the cluster's creation a replica may still show as a master of nothing.
      const masters = (await nodes()).filter((node) => node.role === 'master' && node.slots.length > 0);
      const to = masters.find((node) => node.id !== from.id)!;
      // The new owner first, then the old one (it drops the slot's shard-channel subscribers), then the rest.
      const others = masters.filter((n) => n.id !== to.id && n.id !== from.id);
      for (const node of [to, from, ...others])
        await ask(node.port, (redis) => redis.call('cluster', 'setslot', slot, 'node', to.id));
      await eventually(
        async () => {
          const owners = await Promise.all(
            ports.map((port) =>
              ask(port, async (redis) => {
                const shards = (await redis.call('cluster', 'slots')) as [number, number, [string, number]][];
                return shards.find(([a, b]) => slot >= a && slot <= b)?.[2][1];
              }),
            ),
          );
          return owners.every((port) => port === to.port) ? true : undefined;
        },
        { timeoutMs: 20_000, what: `slot ${slot} to move to ${to.port}` },
      );
      return { from, to };
    },
    async down() {
      await cli('down');
    },
    async up() {
      await cli('up');
    },
    async stop() {
      await cli('stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
