import type pg from 'pg';

/**
 * SQL texts that PostgreSQL should keep as named prepared statements on each pooled connection:
 * the hot queries of `precompiled` register here. A named statement is parsed and planned once per
 * connection, then only bound and executed, instead of parse + plan + execute on every call.
 * The names are per text, so two registrations of one text share a statement.
 */
const names = new Map<string, string>();

export function registerPreparedStatement(text: string): void {
  if (!names.has(text)) names.set(text, `latch_${names.size + 1}`);
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Makes a pg client run registered texts as named statements. Kysely's PostgreSQL driver calls
 * `client.query(text, values)`; pg prepares a `{ name, text, values }` query on first use per
 * connection and skips the Parse message afterwards.
 */
export function useNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) ? names.get(text) : undefined;
    return name === undefined ? query(...args) : query({ name, text, values }, ...args.slice(2));
  };
}
