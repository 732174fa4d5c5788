import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';

/**
 * Fault injection for tests: a trigger that makes an insert of an event fail
 * the way Postgres fails a statement (user_id 'poison', P0001) or refuses a
 * value (user_id 'bad-data', 23514, a data error).
 */
export async function installRefusingEventTrigger(db: Executor): Promise<void> {
  await db.execute(
    sql.raw(`
    create function refuse_test_events() returns trigger language plpgsql as $$
    begin
      if new.user_id = 'poison' then raise exception 'statement fails'; end if;
      if new.user_id = 'bad-data' then raise exception 'value refused' using errcode = '23514'; end if;
      return new;
    end $$;
    create trigger refuse_test_events before insert on events for each row execute function refuse_test_events();`),
  );
}
