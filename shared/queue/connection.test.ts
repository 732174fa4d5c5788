import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { eventually } from '../testing/eventually.js';
import { createRedis } from './connection.js';

// What an operator reads when REDIS_CLUSTER=true points at nothing that answers.

describe('connection failures', () => {
  it('says a cluster is unreachable, naming every seed of REDIS_URL', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const client = createRedis('redis://127.0.0.1:1,redis://127.0.0.1:2', 'producer', {
      cluster: true,
      logger,
      name: 'producer',
    });
    try {
      const line = await eventually(async () => lines.find((l) => l.includes('redis cluster unreachable')), {
        what: 'the unreachable-cluster line',
        timeoutMs: 5000,
      });
      expect(JSON.parse(line).msg).toContain('no node of REDIS_URL (127.0.0.1:1, 127.0.0.1:2) answered');
    } finally {
      client.disconnect();
    }
  });
});
