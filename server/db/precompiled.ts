import { type Compilable, type CompiledQuery, RawNode, createQueryId } from 'kysely';
import type { Executor } from './executor.js';
import { registerPreparedStatement } from './prepared-statements.js';

/**
 * A hot query built and compiled by Kysely once, then run with each call's parameters: the query
 * builder, its immutable node tree and the compiler cost more than the round trip's own CPU on the
 * busiest routes. On PostgreSQL the text also runs as a named prepared statement (parsed and planned
 * once per connection; prepared-statements.ts). `build` must put the parameters in the SQL in the order they are given (checked
 * on the first call, so a reordering fails loudly in the tests instead of binding wrong values).
 *
 * @example
 * const findThing = precompiled((db, tenancyId: string, id: string) =>
 *   db.selectFrom('things').selectAll().where('tenancy_id', '=', tenancyId).where('id', '=', id));
 * const [row] = await findThing(db, tenancyId, id);
 */
export function precompiled<P extends unknown[], R>(build: (db: Executor, ...params: P) => Compilable<R>): (db: Executor, ...params: P) => Promise<R[]> {
  let text: string | null = null;
  let node: RawNode | null = null;
  return async (db, ...params) => {
    if (text === null || node === null) {
      const compiled = build(db, ...params).compile();
      if (compiled.parameters.length !== params.length || compiled.parameters.some((value, i) => value !== params[i])) {
        throw new Error(`precompiled query: the SQL binds [${compiled.parameters.join(', ')}], not the parameters in their given order`);
      }
      text = compiled.sql;
      node = RawNode.createWithSql(text);
      registerPreparedStatement(text);
    }
    // What CompiledQuery.raw(text, params) makes, with the (frozen, immutable) node of the text built
    // once: raw() builds and freezes a new node and its arrays on every call of the hottest queries.
    const query: CompiledQuery<R> = { sql: text, query: node, parameters: params, queryId: createQueryId() };
    return (await db.executeQuery<R>(query)).rows;
  };
}
