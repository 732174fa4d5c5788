import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/architecture.md is the map a new engineer follows: every file and
// folder it names must exist, and its walk of one event must name the files
// on both sides of the queue. A move or rename that forgets the map fails here.

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const text = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const walk = text.slice(text.indexOf('## One event, from'), text.indexOf('\n## ', text.indexOf('## One event, from') + 1));

const PATH = /`((?:api|core|cli|worker|shared|e2e|bench|scripts|docs|drizzle|client)\/[\w./<>-]*)`/g;
/** Paths named in backticks; `<resource>`-style placeholders keep only the part before them. */
const namedPaths = (source: string) =>
  [...new Set([...source.matchAll(PATH)].map((match) => match[1]!.replace(/<[^>]*>.*$/, '')))].filter((path) => path.length > 0);

describe('docs/architecture.md', () => {
  it('names only files and folders that exist', () => {
    const named = namedPaths(text);
    expect(named.length).toBeGreaterThan(40);
    const missing = named.filter(
      (path) => !existsSync(join(root, path)) || (path.endsWith('/') && !statSync(join(root, path)).isDirectory()),
    );
    expect(missing).toEqual([]);
  });

  it('walks an event through both processes, file by file', () => {
    const files = namedPaths(walk).filter((path) => /\.(ts|mjs)$/.test(path));
    // Both ends of the queue and the rules between them.
    for (const expected of [
      'api/routes/events/send.ts',
      'core/events/ingest-events.ts',
      'shared/queue/producer.ts',
      'worker/processor.ts',
      'core/matching/match-batch.ts',
      'shared/domain/sources.ts',
      'core/matching/plan-batch.ts',
      'core/matching/counting-history.ts',
      'shared/db/progress-store.ts',
    ]) {
      expect(files).toContain(expected);
    }
    expect(files.length).toBeGreaterThanOrEqual(25);
  });
});
