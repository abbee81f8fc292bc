import { TRPCError } from '@trpc/server';
import { getParseFn, getTRPCErrorFromUnknown } from '@trpc/server/unstable-core-do-not-import';
import type { RequestContext } from './context.js';

/**
 * tRPC v11's middleware chain (`callRecursive` in its initTRPC), run by the REST dispatcher.
 * Same contract for every middleware: `{ ctx, type, path, input, getRawInput, meta, signal,
 * batchIndex, next }`; `next({ ctx })` merges into the context, `next({ input })` replaces the
 * input; a throw becomes a failed result with the error as tRPC would make it. tRPC's own copy
 * spreads the whole options object twice per level through Babel's `_objectSpread2` helper, about
 * 5 % of the CPU of a hot request; this one passes a few plain values. The input and output
 * validators (tRPC's `inputValidatorMiddleware` and `outputValidatorMiddleware`, recognised by their
 * `_type`) run inline with the same parse function, errors and merging, without a middleware frame
 * each. /api/trpc keeps tRPC's own caller.
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
  _def: { middlewares?: unknown; meta?: unknown; type: string; inputs?: unknown[]; output?: unknown };
}

type ParseFn = (value: unknown) => unknown;

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && !Array.isArray(value) && typeof value === 'object';
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * What each middleware of the chain is: tRPC's single input validator (of `_def.inputs[0]`), its
 * output validator (of `_def.output`), or any other middleware, run as tRPC would.
 */
function stepsOf(def: ProcedureDef['_def'], chain: Middleware[]): Array<{ input: ParseFn } | { output: ParseFn } | null> {
  const typeOf = (m: Middleware) => (m as Middleware & { _type?: string })._type;
  const inputs = chain.filter((m) => typeOf(m) === 'input').length;
  const outputs = chain.filter((m) => typeOf(m) === 'output').length;
  const inputParse = inputs === 1 && def.inputs?.length === 1 ? (getParseFn(def.inputs[0] as never) as ParseFn) : null;
  const outputParse = outputs === 1 && def.output !== undefined ? (getParseFn(def.output as never) as ParseFn) : null;
  return chain.map((m) => {
    if (typeOf(m) === 'input' && inputParse) return { input: inputParse };
    if (typeOf(m) === 'output' && outputParse) return { output: outputParse };
    return null;
  });
}

export type ProcedureRunner = (opts: { path: string; ctx: RequestContext; getRawInput: () => Promise<unknown> }) => Promise<unknown>;

export function procedureRunner(procedure: ProcedureDef): ProcedureRunner {
  const { middlewares, meta, type } = procedure._def;
  if (!Array.isArray(middlewares) || middlewares.length === 0 || !middlewares.every((m) => typeof m === 'function')) {
    // A tRPC upgrade changed its internals: fail at start, not on a request.
    throw new Error(`procedureRunner: this tRPC version keeps no middleware list on procedure._def (type ${type})`);
  }
  const chain = middlewares as Middleware[];
  const steps = stepsOf(procedure._def, chain);
  const call = async (index: number, path: string, ctx: Record<string, unknown>, input: unknown, getRawInput: () => Promise<unknown>): Promise<Result> => {
    try {
      const middleware = chain[index];
      if (!middleware) throw new Error('No result from middlewares - did you forget to `return next()`?');
      const step = steps[index];
      if (step && 'input' in step) {
        // tRPC's inputValidatorMiddleware: parse the raw input, merge it over an earlier input.
        let parsed: unknown;
        try {
          parsed = step.input(await getRawInput());
          if (isPromise(parsed)) parsed = await parsed;
        } catch (cause) {
          throw new TRPCError({ code: 'BAD_REQUEST', cause });
        }
        return await call(index + 1, path, ctx, isObject(input) && isObject(parsed) ? { ...input, ...parsed } : parsed, getRawInput);
      }
      if (step && 'output' in step) {
        // tRPC's outputValidatorMiddleware: a mismatch is the server's bug (500), never sent.
        const result = await call(index + 1, path, ctx, input, getRawInput);
        if (!result.ok) return result;
        let data: unknown;
        try {
          data = step.output(result.data);
          if (isPromise(data)) data = await data;
        } catch (cause) {
          throw new TRPCError({ message: 'Output validation failed', code: 'INTERNAL_SERVER_ERROR', cause });
        }
        return { ok: true, data };
      }
      return await middleware({
        ctx,
        type,
        path,
        input,
        getRawInput,
        meta,
        signal: undefined,
        batchIndex: 0,
        next: (next) =>
          call(index + 1, path, next?.ctx ? { ...ctx, ...next.ctx } : ctx, next && 'input' in next ? next.input : input, next?.getRawInput ?? getRawInput),
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
