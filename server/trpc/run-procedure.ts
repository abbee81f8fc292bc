import { getTRPCErrorFromUnknown } from '@trpc/server/unstable-core-do-not-import';
import type { RequestContext } from './context.js';

/**
 * tRPC v11's middleware chain (`callRecursive` in its initTRPC), run by the REST dispatcher.
 * Same contract for every middleware: `{ ctx, type, path, input, getRawInput, meta, signal,
 * batchIndex, next }`; `next({ ctx })` merges into the context, `next({ input })` replaces the
 * input; a throw becomes a failed result with the error as tRPC would make it. tRPC's own copy
 * spreads the whole options object twice per level through Babel's `_objectSpread2` helper, about
 * 5 % of the CPU of a hot request; this one passes a few plain values.
 * /api/trpc keeps tRPC's own caller.
 */

type Result = { ok: true; data: unknown } | { ok: false; error: Error };
type NextOptions = { ctx?: Record<string, unknown>; input?: unknown; getRawInput?: () => Promise<unknown> } | undefined;
type Middleware = (opts: {
  ctx: Record<string, unknown>;
  type: string;
  path: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  meta: unknown;
  signal: undefined;
  batchIndex: number;
  next: (opts?: NextOptions) => Promise<Result>;
}) => Promise<Result>;

interface ProcedureDef {
  _def: { middlewares?: unknown; meta?: unknown; type: string };
}

export type ProcedureRunner = (opts: { path: string; ctx: RequestContext; getRawInput: () => Promise<unknown> }) => Promise<unknown>;

export function procedureRunner(procedure: ProcedureDef): ProcedureRunner {
  const { middlewares, meta, type } = procedure._def;
  if (!Array.isArray(middlewares) || middlewares.length === 0 || !middlewares.every((m) => typeof m === 'function')) {
    // A tRPC upgrade changed its internals: fail at start, not on a request.
    throw new Error(`procedureRunner: this tRPC version keeps no middleware list on procedure._def (type ${type})`);
  }
  const chain = middlewares as Middleware[];
  const call = async (index: number, path: string, ctx: Record<string, unknown>, input: unknown, getRawInput: () => Promise<unknown>): Promise<Result> => {
    try {
      const middleware = chain[index];
      if (!middleware) throw new Error('No result from middlewares - did you forget to `return next()`?');
      return await middleware({
        ctx,
        type,
        path,
        input,
        getRawInput,
        meta,
        signal: undefined,
        batchIndex: 0,
        next: (next) => call(
          index + 1,
          path,
          next?.ctx ? { ...ctx, ...next.ctx } : ctx,
          next && 'input' in next ? next.input : input,
          next?.getRawInput ?? getRawInput,
        ),
      });
    } catch (cause) {
      return { ok: false, error: getTRPCErrorFromUnknown(cause) };
    }
  };
  return async ({ path, ctx, getRawInput }) => {
    const result = await call(0, path, ctx as unknown as Record<string, unknown>, undefined, getRawInput);
    if (!result.ok) throw result.error;
    return result.data;
  };
}
