import { afterAll, describe, expect, it } from 'vitest';
import { progressChannel, registrationChannel } from '../../shared/live/channel.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createRedis } from '../../shared/queue/connection.js';
import { uniqueSuffix } from '../../shared/testing/database.js';
import { eventually } from '../../shared/testing/eventually.js';
import { LiveHub } from './hub.js';

// The hub's lost notice (docs/reliability.md): a channel asked for while the
// subscriber connection is in its handshake (status `connect`, between the
// socket connecting and ioredis's ready check) must still be subscribed once
// the connection is ready. Here the ask comes on the `connect` event itself.
const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `test-${uniqueSuffix()}`;
const publisher = createRedis(REDIS_URL, 'producer');
const hubs: LiveHub[] = [];
afterAll(async () => {
  for (const hub of hubs) await hub.close();
  publisher.disconnect();
});

function hubOnNewConnection() {
  const subscriber = createRedis(REDIS_URL, 'subscriber');
  const hub = new LiveHub({
    redis: subscriber,
    queuePrefix: prefix,
    logger: createLogger({ level: 'silent', name: 'hub-test' }),
  });
  hubs.push(hub);
  return { hub, subscriber };
}

/** Runs `ask` at the subscriber's next `connect` event (the handshake is under way) and resolves with what it returns. */
const duringNextHandshake = <T>(subscriber: ReturnType<typeof createRedis>, ask: () => Promise<T>) =>
  new Promise<T>((resolve, reject) =>
    subscriber.once('connect', () => {
      expect(subscriber.status).toBe('connect');
      ask().then(resolve, reject);
    }),
  );

const subscribers = async (channel: string) =>
  Number(((await publisher.call('pubsub', 'numsub', channel)) as [string, number])[1]);
const readyConnection = (subscriber: ReturnType<typeof createRedis>) =>
  eventually(async () => (subscriber.status === 'ready' ? true : undefined), {
    what: 'the subscriber connection to be ready',
    timeoutMs: 5_000,
  });

describe('LiveHub on a connection in its handshake', () => {
  it('subscribes a registration channel asked for during the first handshake, so the notice reaches the stream', async () => {
    const { hub, subscriber } = hubOnNewConnection();
    const scope = { platformId: 'platform-1', platformUserId: `handshake-${uniqueSuffix()}`, livemode: true };
    const notices: string[] = [];
    await duringNextHandshake(subscriber, () => hub.awaitRegistration(scope, (userId) => notices.push(userId)));
    await readyConnection(subscriber);

    const channel = registrationChannel(prefix, scope.platformId, scope.platformUserId);
    expect(await publisher.publish(channel, 'user-1'), 'subscribers the registration notice reached').toBe(1);
    await eventually(async () => (notices.length > 0 ? true : undefined), { what: 'the notice', timeoutMs: 5_000 });
    expect(notices).toEqual(['user-1']);
  });

  it('subscribes a user channel asked for during a reconnect, beside the ones ioredis re-subscribes', async () => {
    const { hub, subscriber } = hubOnNewConnection();
    await readyConnection(subscriber);
    const connectionId = (await subscriber.client('ID')) as number;
    const before = `user-before-${uniqueSuffix()}`;
    const during = `user-during-${uniqueSuffix()}`;
    await hub.subscribe(before, () => {});

    const resubscribed = duringNextHandshake(subscriber, () => hub.subscribe(during, () => {}));
    await publisher.client('KILL', 'ID', String(connectionId));
    await resubscribed;
    await readyConnection(subscriber);
    await eventually(async () => ((await subscribers(progressChannel(prefix, before))) === 1 ? true : undefined), {
      what: 'ioredis to re-subscribe the channel held before the loss',
      timeoutMs: 5_000,
    });
    expect(await subscribers(progressChannel(prefix, during)), 'subscribers of the channel asked for during the reconnect').toBe(
      1,
    );
  });
});
