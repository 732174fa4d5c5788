import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/architecture.md is the map a new engineer follows: every file and
// folder it names must exist, and its walk of one event must name the files
// on both sides of the queue. A move or rename that forgets the map fails here.
// Rules are cited by their section of docs/product-rules.md: every `§N` cited
// must be a heading there, and no file names a work item of our tracker.

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

/** Folders that hold no source of ours: installs, builds, outputs (as .gitignore has them); dot-folders are skipped too. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'coverage', 'bench/results']);
/** Generated from the OpenAPI document, which quotes route descriptions. */
const GENERATED = new Set(['client/schema.d.ts']);

/** Every .ts, .mjs and .md file of the tree, as paths relative to the root. */
function sourceFiles(folder = ''): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory())
      return entry.name.startsWith('.') || NOT_SOURCE.has(entry.name) || NOT_SOURCE.has(path) ? [] : sourceFiles(path);
    return /\.(ts|mjs|md)$/.test(entry.name) && !GENERATED.has(path) ? [path] : [];
  });
}

/** Sections of other documents (RFC 9110 §8.6, an IETF draft's §6.2, a book's), which are not ours. */
const FOREIGN_SECTION = /\b(?:RFC \d+|draft(?:'s)?|Recipes)(?:\s|\*|\/\/)*§[\d.]+/g;
/** `§4`, `§6.2` (section 6), `§4-5` / `§4-§5` (sections 4 and 5). */
const CITATION = /§(\d+)(?:\.\d+)?(?:-§?(\d+))?/g;

/** Each cited section number with the first file citing it. */
function citedSections(files: string[]): Map<number, string> {
  const cited = new Map<number, string>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8').replace(FOREIGN_SECTION, '');
    for (const match of text.matchAll(CITATION)) {
      const from = Number(match[1]);
      const to = match[2] === undefined ? from : Number(match[2]);
      for (let section = from; section <= to; section++) if (!cited.has(section)) cited.set(section, file);
    }
  }
  return cited;
}

/**
 * A work item of our own tracker named by number: the word issue (or issues)
 * followed by a number, with or without `#`, or a bare `#` and a number.
 * Upstream references name their repository (porsager/postgres#1192,
 * redis/ioredis#2037), which the second pattern's leading space or
 * parenthesis leaves out.
 */
const WORK_ITEM = [/\bissues? +#?\d+\b/gi, /(?:^|[\s(])#\d+\b/gm];

describe('docs/product-rules.md', () => {
  const files = sourceFiles();
  const rules = readFileSync(join(root, 'docs', 'product-rules.md'), 'utf8');
  const headings = new Set([...rules.matchAll(/^## §(\d+) /gm)].map((match) => Number(match[1])));

  it('has a heading for every section cited in code, tests and docs', () => {
    const cited = citedSections(files);
    expect(cited.size).toBeGreaterThanOrEqual(16);
    const missing = [...cited].filter(([section]) => !headings.has(section)).map(([section, file]) => `§${section} (${file})`);
    expect(missing).toEqual([]);
  });

  it('numbers its sections §1, §2, … without a gap', () => {
    expect([...headings]).toEqual(Array.from({ length: headings.size }, (_, index) => index + 1));
  });

  it('is the only reference: no file names a work item of our tracker by number', () => {
    expect(files.length).toBeGreaterThan(300);
    const naming = files.flatMap((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return WORK_ITEM.flatMap((pattern) =>
        [...text.matchAll(pattern)].map(
          (match) => `${file}:${text.slice(0, match.index).split('\n').length}: ${match[0].trim()}`,
        ),
      );
    });
    expect(naming).toEqual([]);
  });
});
