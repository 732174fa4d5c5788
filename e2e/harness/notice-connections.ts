import { Redis } from 'ioredis';
import { connectionNameOf } from '../../shared/queue/connection.js';
import { adminHeaders } from '../../shared/testing/admin-token.js';

/**
 * Cuts every API's change-notice subscriptions of a stack: `CLIENT KILL ID`
 * of each connection named `<QUEUE_PREFIX>:notices` on each of `ports` (one
 * Redis, or every node of a cluster), as a network fault or a Redis-side
 * timeout would. Answers how many connections were cut.
 */
export async function cutNoticeConnections(ports: readonly number[], queuePrefix: string): Promise<number> {
  const name = connectionNameOf(`${queuePrefix}:notices`);
  let cut = 0;
  for (const port of ports) {
    const node = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
    node.on('error', () => {});
    try {
      await node.connect();
      const list = (await node.client('LIST')) as string;
      for (const line of list.split('\n').filter((l) => l.includes(` name=${name} `))) {
        await node.client('KILL', 'ID', /\bid=(\d+)/.exec(line)![1]!);
        cut += 1;
      }
    } finally {
      node.disconnect();
    }
  }
  return cut;
}

/** Whether the API at `url` serves cached answers now (`qcr_answer_cache_serving` in its /metrics); null when it does not answer. */
export async function answerCacheServing(url: string): Promise<boolean | null> {
  try {
    const response = await fetch(`${url}/metrics`, { headers: adminHeaders, signal: AbortSignal.timeout(5000) });
    if (!response.ok) return null;
    return /^qcr_answer_cache_serving 1$/m.test(await response.text());
  } catch {
    return null;
  }
}
