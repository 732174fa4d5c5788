import { customType } from 'drizzle-orm/pg-core';
import { formatIsoMicros, parseUtcTimestamp } from '../domain/timestamp.js';

/**
 * A `timestamptz` column read and written as epoch microseconds (bigint), the
 * unit every domain rule uses. This is the one place Postgres' timestamp text
 * is converted: drizzle's postgres.js driver leaves timestamps as text
 * ("2026-01-02 03:04:05.678901+00" in our UTC sessions), so no precision is
 * lost to a Date on the way.
 */
export const timestampUs = customType<{ data: bigint; driverData: string; config: { precision: 3 | 6 } }>({
  // Spelled as drizzle-kit spelled the original columns, so the schema snapshot sees no change.
  dataType: (config) => (config?.precision === 3 ? 'timestamp (3) with time zone' : 'timestamp(6) with time zone'),
  fromDriver: (text) => pgTimestampToMicros(text),
  toDriver: (us) => formatIsoMicros(us),
});

function pgTimestampToMicros(value: string | Date): bigint {
  // Postgres text in a UTC session; a Date only if some other client parsed it first.
  const text = value instanceof Date ? value.toISOString() : value.replace(' ', 'T').replace(/\+00(?::00)?$/, 'Z');
  const us = parseUtcTimestamp(text);
  if (us === null) throw new Error(`unexpected timestamp from Postgres: ${String(value)}`);
  return us;
}

/**
 * A `bytea` column as a Buffer (drizzle has no builtin for it; postgres.js
 * hands bytea over as a Buffer already).
 */
export const bytes = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
});
