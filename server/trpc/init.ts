import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { toWireError } from '../errors/wire.js';
import type { RequestContext } from './context.js';

/**
 * Procedure metadata: the REST projection plus the success status (201 for creates), or
 * `successStatusOf` when the answer decides it (the CLI poll: 200 waiting, 201 success).
 */
export type LatchMeta = OpenApiMeta<{ successStatus?: 200 | 201; successStatusOf?: (data: unknown) => 200 | 201 }>;

/** The one initTRPC of the server. Errors leave as `{code, details, error}` on both transports. */
export const t = initTRPC
  .context<RequestContext>()
  .meta<LatchMeta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const wire = toWireError(error, ctx?.requestId ?? 'unknown');
      return { ...shape, message: wire.body.error, data: { httpStatus: wire.status, latch: wire.body } };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
export const createCallerFactory = t.createCallerFactory;
