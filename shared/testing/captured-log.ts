import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../observability/logger.js';

/** A logger whose lines a test reads back, parsed, in the order written. */
export function capturingLogger<Line = Record<string, unknown>>(options: {
  level: string;
  name: string;
}): {
  logger: Logger;
  lines: Line[];
} {
  const lines: Line[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  return { logger: createLogger({ ...options, destination }), lines };
}
