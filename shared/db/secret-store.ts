import { eq } from 'drizzle-orm';
import type { Executor } from './client.js';
import { serviceSecrets } from './schema/index.js';

/**
 * The service secret called `name`, stored with `generate()`'s value by
 * whichever process asks first: every replica then reads the same one.
 */
export async function ensureServiceSecret(db: Executor, name: string, generate: () => string): Promise<string> {
  await db.insert(serviceSecrets).values({ name, value: generate() }).onConflictDoNothing();
  const [row] = await db
    .select({ value: serviceSecrets.value })
    .from(serviceSecrets)
    .where(eq(serviceSecrets.name, name))
    .limit(1);
  return row!.value;
}
