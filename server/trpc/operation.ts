import type { inferParser, Parser, ProcedureBuilder, UnsetMarker } from '@trpc/server/unstable-core-do-not-import';
import type { LatchMeta } from './init.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A procedure builder before its metadata is set (any access level, any middlewares). */
interface Unnamed {
  meta(meta: LatchMeta): unknown;
}

export interface OperationOptions {
  /** The operation needs credentials (openapi `protect`): the reference shows a lock. */
  protect?: true;
  /** 201 for creates; 200 otherwise. */
  successStatus?: 201;
  /** When the answer decides the status (REST only; tRPC has none). */
  successStatusOf?: (data: unknown) => 200 | 201;
}

/**
 * A domain's REST operations, each in one call: `op(access, 'POST /auth/password/set', summary,
 * { input, output })` names a procedure's method and path under the domain's tags (the
 * `.meta({ openapi: … })` every procedure had spelled out) and sets its input and output schemas,
 * typed as `.input(input).output(output)` would, so tRPC's inference is untouched and a router reads
 * as a table of operations. Without `input`/`output` the builder comes back with only its metadata
 * set, and the chain follows as usual. `defaults` apply to every operation of the domain (the
 * admin-only internal routers are all `protect: true`).
 *
 * @example
 * const op = restOperations(['Sessions']);
 * export const sessionsRouter = router({
 *   signOut: op(clientProcedure, 'DELETE /auth/sessions/current', 'Sign out: ends the current session', {
 *     input: z.object({}),
 *     output: successSchema,
 *   }).mutation(succeedAfter(({ ctx }) => service.signOut(ctx.deps, ctx.auth))),
 * });
 */
export function restOperations(tags: string[], defaults: OperationOptions = {}) {
  function op<B extends Unnamed>(procedure: B, route: Route, summary: string, own?: OperationOptions): ReturnType<B['meta']>;
  function op<C, CO, Caller extends boolean, E, I extends Parser, O extends Parser>(
    procedure: Fresh<C, CO, Caller, E>,
    route: Route,
    summary: string,
    own: OperationIo<I, O>,
  ): Typed<C, CO, Caller, E, I, O>;
  function op(procedure: Unnamed, route: Route, summary: string, own: OperationOptions & Partial<OperationIo<Parser, Parser>> = {}): unknown {
    const options = { ...defaults, ...own };
    const space = route.indexOf(' ');
    const method = route.slice(0, space) as Method;
    const path = route.slice(space + 1) as `/${string}`;
    const openapi = { method, path, tags, summary, ...(options.protect ? { protect: true } : {}) };
    const named = procedure.meta({
      openapi,
      ...(options.successStatus ? { successStatus: options.successStatus } : {}),
      ...(options.successStatusOf ? { successStatusOf: options.successStatusOf } : {}),
    });
    if (!own.input || !own.output) return named;
    const typed = named as { input(schema: Parser): { output(schema: Parser): unknown } };
    return typed.input(own.input).output(own.output);
  }
  return op;
}

type Route = `${Method} /${string}`;

/** A schema `op` takes as input or output, and what it parses to: for routers that build operations generically. */
export type { inferParser, Parser };

/** A procedure with its access level and middlewares, before metadata, input or output. */
type Fresh<C, CO, Caller extends boolean, E> = ProcedureBuilder<C, LatchMeta, CO, UnsetMarker, UnsetMarker, UnsetMarker, UnsetMarker, Caller, E>;

/** The schemas an operation reads and answers, given with its route so a router line holds both. */
export interface OperationIo<I extends Parser, O extends Parser> extends OperationOptions {
  input: I;
  output: O;
}

/** What `.input(input).output(output)` would have made of a fresh procedure. */
type Typed<C, CO, Caller extends boolean, E, I extends Parser, O extends Parser> = ProcedureBuilder<
  C,
  LatchMeta,
  CO,
  inferParser<I>['in'],
  inferParser<I>['out'],
  inferParser<O>['in'],
  inferParser<O>['out'],
  Caller,
  E
>;

/**
 * The `{ success: true }` answer (contract/validation/schemas.ts successSchema) of a call with
 * nothing else to say, added by the router: it is wire shape, services return nothing. With
 * `fields`, the answer carries them after `success` (`{ success: true, id }`).
 */
export function succeed(): { success: true };
export function succeed<F extends object>(fields: F): { success: true } & F;
export function succeed(fields?: object): { success: true } {
  return { success: true, ...fields };
}

/**
 * The handler of a call that answers `{ success: true }` (succeed) once the service it runs is
 * done: `.mutation(succeedAfter(({ ctx, input }) => service.revoke(ctx.deps, ctx.auth, input.id)))`.
 */
export function succeedAfter<Options>(handler: (options: Options) => Promise<unknown>): (options: Options) => Promise<{ success: true }> {
  return async (options) => {
    await handler(options);
    return succeed();
  };
}

/**
 * The handler of a call that answers a short list (contract/validation/schemas.ts shortList): every
 * item at once, `{ items, is_paginated: false }`, from the service's array.
 * `.query(asShortList(({ ctx, input }) => service.listTeams(ctx.deps, ctx.auth, input)))`.
 */
export function asShortList<Options, T>(handler: (options: Options) => Promise<T[]>): (options: Options) => Promise<{ items: T[]; is_paginated: false }> {
  return async (options) => ({ items: await handler(options), is_paginated: false });
}
