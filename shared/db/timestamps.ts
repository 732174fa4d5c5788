import { formatIsoMillis, parseUtcTimestamp } from '../domain/timestamp.js';

/**
 * Postgres text output of a timestamptz in a UTC session
 * ("2026-01-02 03:04:05.678901+00") as epoch microseconds, without the
 * millisecond truncation a Date would impose.
 */
export function pgTimestampToMicros(text: string): bigint {
  const us = parseUtcTimestamp(text.replace(' ', 'T').replace(/\+00(?::00)?$/, 'Z'));
  if (us === null) throw new Error(`unexpected timestamp from Postgres: ${text}`);
  return us;
}

export const pgTimestampToMicrosOrNull = (text: string | null): bigint | null => (text === null ? null : pgTimestampToMicros(text));

/** Postgres timestamptz text as the API's response format (ISO 8601 UTC, milliseconds). */
export const pgTimestampToIso = (text: string): string => formatIsoMillis(pgTimestampToMicros(text));
