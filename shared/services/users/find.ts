import type { Sql } from '../../db/client.js';

/**
 * The service user id of a platform's user, or null when that platform has
 * not registered them. Scoped by platform, so another platform's user is
 * unknown here (tenancy: no leak).
 */
export async function findUserId(sql: Sql, platformId: string, platformUserId: string): Promise<string | null> {
  const [row] = await sql<{ id: string }[]>`
    select id from users where platform_id = ${platformId} and platform_user_id = ${platformUserId}`;
  return row?.id ?? null;
}
