import type { ServerResponse } from 'node:http';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { RequestHandler } from 'express';
import type { Deps } from '../deps.js';
import { retryAfterSeconds, toWireError } from '../errors/wire.js';
import { appRouter } from '../router.js';
import { createRequestContext } from './context.js';

/** The most calls one tRPC batch request may carry. */
export const TRPC_MAX_BATCH_SIZE = 10;

/** The /api/trpc transport: every procedure, as tRPC calls (the SDK's transport). */
export function trpcExpressHandler(deps: Deps): RequestHandler {
  const trpc = createExpressMiddleware({
    router: appRouter,
    // One HTTP request carried ~780 sign-ups before: every per-request defence (body size, the
    // request count a proxy sees) was one request. Larger batches are a SCHEMA_ERROR before any
    // call runs; each call of a batch counts against the rate limits on its own. The SDK batches
    // the calls of one tick (sdk/transport.ts).
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    createContext: ({ req, res }) => createRequestContext(deps, req, String(res.locals.requestId)),
    // One call: the status and known-error header of its error, as on REST. A batch keeps tRPC's
    // status (207 when mixed) and its header lists each call's code in order, empty for a success,
    // so the header rule (it names the body's code) holds per call.
    responseMeta({ errors, paths, ctx, data }) {
      const first = errors[0];
      if (!first) return {};
      if ((paths?.length ?? 0) > 1) {
        const codes = data.map((item) => ('error' in item ? String((item.error.data as { latch?: { code?: string } }).latch?.code ?? '') : ''));
        // Every call of the batch refused for now (all 429 or 503): the batch may be repeated as a
        // whole, after the longest of their waits.
        const waits = errors.length === data.length ? errors.map((error) => retryAfterSeconds(toWireError(error, ctx?.requestId ?? 'unknown'))) : [];
        const retryAfter = waits.length > 0 && waits.every((wait) => wait !== null) ? { 'retry-after': String(Math.max(...(waits as number[]))) } : {};
        return { headers: { 'x-latch-known-error': codes.join(','), ...retryAfter } };
      }
      const wire = toWireError(first, ctx?.requestId ?? 'unknown');
      const retryAfter = retryAfterSeconds(wire);
      return {
        status: wire.status,
        headers: {
          'x-latch-known-error': wire.body.code,
          'x-stack-known-error': wire.body.code,
          ...(retryAfter === null ? {} : { 'retry-after': String(retryAfter) }),
        },
      };
    },
    onError({ error, ctx }) {
      if (error.code === 'INTERNAL_SERVER_ERROR' && !(error.cause && 'status' in error.cause)) {
        deps.log.error(`unexpected tRPC error (request ${ctx?.requestId ?? 'unknown'})`, { error: error.cause?.stack ?? error.message });
      }
    },
  });
  return (req, res, next) => {
    if (req.headers['x-latch-override-error-status'] === 'true') overrideErrorStatus(res);
    return trpc(req, res, next);
  };
}

/**
 * `x-latch-override-error-status: true`, as on REST (trpc/rest.ts, sendError): an answer that
 * would be an error status (3xx-5xx) goes out as 200 with the real one in `x-latch-actual-status`,
 * for platforms that hide the body of a non-2xx answer. Done where the status is written, so it
 * covers every answer of this transport, also those tRPC makes before any context exists (an
 * unreadable `?input=`, a batch over the limit); a batch's 207 is a 2xx and stays.
 */
function overrideErrorStatus(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (statusCode < 300) return writeHead.call(this, statusCode, ...(rest as []));
    this.setHeader('x-latch-actual-status', String(statusCode));
    // A reason phrase given for the error status ("Not Found") would be wrong on a 200.
    return writeHead.call(this, 200, ...((typeof rest[0] === 'string' ? rest.slice(1) : rest) as []));
  } as ServerResponse['writeHead'];
}
