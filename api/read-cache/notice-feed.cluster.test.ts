import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCluster, startLocalCluster } from '../../e2e/harness/redis-cluster.js';
import { createNodeConnection } from '../../shared/queue/connection.js';
import { capturingLogger } from '../../shared/testing/captured-log.js';
import { eventually } from '../../shared/testing/eventually.js';
import { openShardedFeed } from './notice-feed.js';

// A slot's move leaves a sharded channel unsubscribed from the moment its old
// owner drops the subscription until the feed subscribes it on the new owner,
// often well under the four probe intervals that would prove it silent. A
// notice published in that gap is lost, so the feed must say when a channel
// is subscribed again (change-notices.ts then drops every cached answer).

let cluster: LocalCluster;
const clients: { disconnect(): void }[] = [];
beforeAll(async () => {
  cluster = await startLocalCluster();
}, 60_000);
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await cluster?.stop();
});

const nodes = () => cluster.ports.map((port) => ({ host: '127.0.0.1', port }));

describe('the sharded notice feed', () => {
  it('reports a channel subscribed again on its new owner after a slot move, so a notice lost in the gap is known', async () => {
    const channel = '{notice-feed-test}:changed:0';
    // The feed's slot map is refreshed only when the test asks: nothing else may close the gap first.
    const feedCluster = new Cluster(nodes(), { slotsRefreshInterval: 600_000 });
    const publisher = new Cluster(nodes());
    clients.push(feedCluster, publisher);
    await eventually(async () => (feedCluster.status === 'ready' ? true : undefined), { what: 'the cluster client' });

    const { logger, lines } = capturingLogger<{ level: number; msg: string; channel?: string }>({ level: 'info', name: 'test' });
    const heard: string[] = [];
    const resubscribed: string[][] = [];
    const feed = openShardedFeed({
      cluster: feedCluster,
      connect: (node) => createNodeConnection(`redis://127.0.0.1:${cluster.ports[0]}`, node, { logger }),
      channels: [channel],
      listener: (_channel, raw) => heard.push(raw),
    });
    clients.push({ disconnect: () => feed.close() });
    feed.onResubscribed((channels) => resubscribed.push([...channels]));
    const delivered = (message: string) =>
      eventually(
        async () => {
          await publisher.spublish(channel, message);
          return heard.includes(message) ? true : undefined;
        },
        { what: `"${message}" delivered`, timeoutMs: 5000 },
      );
    await delivered('before');

    const { from, to } = await cluster.moveSlot(channel);
    expect(to.port).not.toBe(from.port);
    // The old owner dropped the subscription; the feed has not seen the move: this notice is lost.
    await publisher.spublish(channel, 'lost');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard).not.toContain('lost');
    expect(resubscribed).toEqual([]);

    feedCluster.refreshSlotsCache();
    await eventually(async () => (resubscribed.length > 0 ? true : undefined), { what: 'resubscribed', timeoutMs: 5000 });
    expect(resubscribed).toEqual([[channel]]);
    await delivered('after');
    // The old owner's own SUNSUBSCRIBE, which ioredis reports as an error, is logged as what it is.
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    const dropped = lines.filter((line) => line.msg.startsWith('the server dropped a sharded subscription'));
    expect(dropped.length).toBeGreaterThan(0);
    for (const line of dropped) expect(line).toMatchObject({ level: 30, channel });
  });
});
