import type postgres from 'postgres';

/**
 * drizzle runs every statement through postgres.js' `unsafe` with
 * `prepare: false` unless the query was given a name. postgres.js then sends a
 * parameterised statement as Parse + Describe and waits, and only then Bind +
 * Execute: two round trips and a fresh plan per call, which on a short
 * statement such as the ingest's costs about as much as running it.
 *
 * This client makes postgres.js prepare every parameterised statement (its
 * default for its own templates), in transactions too. postgres.js keeps one
 * prepared statement per distinct text and connection; our texts are stable
 * (arrays travel as one parameter, see sql-fragments.ts), so the set stays small.
 * Statements without parameters go as they are (one round trip already;
 * utility statements like VACUUM need no plan).
 */
export function preparingClient(client: postgres.Sql): postgres.Sql {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, parameters?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(
            query,
            parameters as never,
            parameters && parameters.length > 0 ? { ...options, prepare: true } : options,
          );
      }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const last = args.length - 1;
          const body = args[last] as (tx: postgres.TransactionSql) => unknown;
          args[last] = (tx: postgres.TransactionSql) =>
            body(preparingClient(tx as unknown as postgres.Sql) as unknown as postgres.TransactionSql);
          return (target.begin as (...a: unknown[]) => unknown)(...args);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
