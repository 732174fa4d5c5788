import { honoPath } from './route-entry.js';

/** What the planner needs of a route. */
interface Mountable {
  route: { method: string; path: string };
}

interface WildcardGroup<E extends Mountable> {
  method: string;
  /** `<prefix>/*` on the main app, forwarding to an app of the group's own. */
  wildcard: string;
  entries: E[];
}

export interface MountPlan<E extends Mountable> {
  /** Routes the app holds itself, in table order. */
  direct: E[];
  behindWildcards: WildcardGroup<E>[];
}

const PARAM = ':';
const segmentsOf = (entry: Mountable) => honoPath(entry.route).split('/');
const shapeOf = (segments: string[]) => segments.map((segment) => (segment.startsWith(PARAM) ? PARAM : segment));

/**
 * Where `a` has a parameter and `b` a static segment after the same
 * segments: the index of that segment, or null.
 */
function forkAt(a: string[], b: string[]): number | null {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    if (a[i] === b[i]) continue;
    return a[i] === PARAM && b[i] !== '' ? i : null;
  }
  return null;
}

/**
 * Hono's RegExpRouter cannot hold a parameter beside a static segment after
 * the same prefix (GET /v1/rewards/{platformUserId} beside GET
 * /v1/rewards/draws/{claim_id}): one such pair sends every request of the app
 * through the slower TrieRouter (api/app-router.test.ts). It does take a
 * wildcard there. So each route whose parameter forks from a static segment
 * of another route of its method goes behind `<prefix>/*` on an app of its
 * own (grouped by method and prefix; a group under another's prefix joins
 * it, and the inner app is planned the same way), while the routes with the
 * static segment stay on the main app and answer their paths first.
 */
export function planMounts<E extends Mountable>(entries: readonly E[]): MountPlan<E> {
  const shapes = new Map(entries.map((entry) => [entry, shapeOf(segmentsOf(entry))]));
  const forks = new Map<E, number>();
  for (const a of entries) {
    for (const b of entries) {
      if (a === b || a.route.method !== b.route.method) continue;
      const at = forkAt(shapes.get(a)!, shapes.get(b)!);
      if (at !== null && at < (forks.get(a) ?? Number.POSITIVE_INFINITY)) forks.set(a, at);
    }
  }
  const groups: (WildcardGroup<E> & { prefix: string[] })[] = [];
  const direct: E[] = [];
  const byDepth = [...forks].sort(([, x], [, y]) => x - y);
  for (const [entry, at] of byDepth) {
    const prefix = segmentsOf(entry).slice(0, at);
    const outer = groups.find(
      (group) => group.method === entry.route.method && group.prefix.every((segment, i) => prefix[i] === segment),
    );
    if (outer) outer.entries.push(entry);
    else groups.push({ method: entry.route.method, wildcard: `${prefix.join('/')}/*`, entries: [entry], prefix });
  }
  for (const entry of entries) if (!forks.has(entry)) direct.push(entry);
  // Table order inside each group too.
  const rank = new Map(entries.map((entry, i) => [entry, i]));
  const behindWildcards = groups.map(({ method, wildcard, entries: grouped }) => ({
    method,
    wildcard,
    entries: grouped.sort((x, y) => rank.get(x)! - rank.get(y)!),
  }));
  return { direct, behindWildcards };
}
