import { type SQL, sql } from 'drizzle-orm';
import { formatIsoMicros } from '../domain/timestamp.js';

/**
 * Small SQL pieces the data modules share. Arrays travel as ONE parameter
 * (drizzle would otherwise expand them into one placeholder per element,
 * giving every batch size its own statement text).
 */

/** A uuid[] parameter. Ids are uuids (validated or generated), so the array literal needs no quoting. */
export const idArray = (ids: readonly string[]): SQL => sql`${`{${ids.join(',')}}`}::uuid[]`;

/** A text[] parameter for arbitrary strings, passed as JSON so no quoting rule of array literals applies. */
export const textArray = (values: readonly (string | null)[]): SQL =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

/** A typed array parameter of numbers or null (e.g. `int[]`, `bigint[]`): one parameter, no JSON to parse. */
export const numberArray = (values: readonly (number | bigint | null)[], type: 'int' | 'bigint'): SQL =>
  sql`${`{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`}::${sql.raw(type)}[]`;

/** A boolean[] parameter. */
export const booleanArray = (values: readonly boolean[]): SQL =>
  sql`${`{${values.map((v) => (v ? 't' : 'f')).join(',')}}`}::boolean[]`;

/** A uuid[] parameter that may hold nulls. */
export const nullableIdArray = (ids: readonly (string | null)[]): SQL =>
  sql`${`{${ids.map((id) => id ?? 'NULL').join(',')}}`}::uuid[]`;

/** A timestamptz from epoch microseconds, exact (no float round trip). */
export const instant = (us: bigint): SQL => sql`${formatIsoMicros(us)}::timestamptz`;

/** A timestamptz column as epoch microseconds in text (bigint would lose nothing, but the driver hands text). */
export const occurredUsColumn = (column: SQL): SQL => sql`(extract(epoch from ${column}) * 1000000)::bigint::text`;

/** Epoch microseconds (a bigint[] element, say) back to a timestamptz, exactly. */
export const fromUs = (column: SQL): SQL => sql`(timestamptz 'epoch' + ${column} * interval '1 microsecond')`;
