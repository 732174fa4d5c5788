/**
 * Grouping into a map of lists, in the items' order (Map.groupBy arrives only
 * with Node 21; the service runs on Node 20 too).
 */
export function groupBy<K, T>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) appendTo(groups, keyOf(item), item);
  return groups;
}

/** Adds `item` to the list under `key`, starting the list if there is none. */
export function appendTo<K, T>(groups: Map<K, T[]>, key: K, item: T): void {
  const list = groups.get(key);
  if (list) list.push(item);
  else groups.set(key, [item]);
}
