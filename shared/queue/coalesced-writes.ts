import type { Duplex } from 'node:stream';
import { Cluster, type Redis } from 'ioredis';

// ioredis writes every command to its socket as it is sent: one write(2) per
// command. A batch of matched jobs completes dozens of them in one tick
// (BullMQ's moveToFinished script each), and a group-commit flush of the API
// adds a job per partition. Each write to a loopback socket costs the sender
// the kernel's TCP path and a wakeup of Redis: on shared cores, about a tenth
// of a worker's busy time (`writeBuffer` under ioredis' sendCommand in
// --profile-workers). Corked until the tick's work is done, the commands one
// tick sends leave in one writev(2), in the order sent, each reply still
// matched to its command by ioredis' queue: nothing changes but how many
// system calls carry the bytes. (ioredis' enableAutoPipelining would batch
// too, but through pipelines of its own, with which BullMQ users have
// reported lost job data: OptimalBits/bull#2276.) A command waits at most
// for the synchronous work of the tick that sent it.

const coalesced = new WeakSet<Duplex>();

/** Corks the socket at its first write in a tick and uncorks it when the tick's work is done (Node's own idiom for cork). */
function coalesceSocketWrites(socket: Duplex): void {
  if (coalesced.has(socket)) return;
  coalesced.add(socket);
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function coalescedWrite(this: Duplex, ...args: Parameters<Duplex['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return write.apply(this, args);
  } as Duplex['write'];
}

/** Every socket this one server's client connects (a reconnect makes a new one). */
function coalesceNodeWrites(redis: Redis): void {
  const patch = () => {
    if (redis.stream) coalesceSocketWrites(redis.stream);
  };
  patch();
  redis.on('connect', patch);
}

/**
 * Makes a client send each tick's commands in one system call: on a cluster,
 * each node's connection (nodes join as slots move). Blocking connections
 * BullMQ duplicates from the client are left as they are (one command each).
 */
export function coalesceWrites(client: Redis | Cluster): void {
  if (client instanceof Cluster) {
    for (const node of client.nodes()) coalesceNodeWrites(node);
    client.on('+node', (node: Redis) => coalesceNodeWrites(node));
  } else coalesceNodeWrites(client);
}
