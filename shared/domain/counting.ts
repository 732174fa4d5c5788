// The one order every walk over a user's events uses (§5). Which events count
// for which user and chain (§4) is sources.ts.

/** Where an event sits in the §5 walk; also the shape of a walk's high-water mark. */
export type EventPosition = { occurredUs: bigint; id: string };

/** The walk order of §5: timestamp, then event id as plain code-unit order (not locale order). */
export function compareEventPositions(a: EventPosition, b: EventPosition): number {
  if (a.occurredUs !== b.occurredUs) return a.occurredUs < b.occurredUs ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}
