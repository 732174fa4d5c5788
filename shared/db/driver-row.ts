/**
 * Columns selected by a `sql` statement (run with `db.execute`) as the driver
 * hands them: drizzle's postgres.js driver leaves timestamps as Postgres text,
 * and postgres.js hands int8 as text too, so every bigint of the schema type
 * arrives as a string. Derived from the schema's own types, e.g.
 * `DriverRow<Pick<typeof events.$inferSelect, 'id' | 'occurredAt'>>`; the
 * column's decoder (`events.occurredAt.mapFromDriverValue`) turns the text back.
 */
export type DriverRow<T> = {
  [K in keyof T]: T[K] extends bigint ? string : T[K] extends bigint | null ? string | null : T[K];
};

/** A json value from a `sql` statement: postgres.js hands json text unparsed unless it knows the type. */
export const fromJson = <T>(value: string | T): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/**
 * A `timestampUs` column's own decoder applied to its driver text: epoch
 * microseconds. (drizzle types a custom column's `mapFromDriverValue` as
 * returning `unknown`; `timestampUs` always answers a bigint.)
 */
export function decodeTimestampUs(column: { mapFromDriverValue(value: string): unknown }, text: string): bigint {
  return column.mapFromDriverValue(text) as bigint;
}
