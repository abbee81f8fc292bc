import { describe, expect, it } from 'vitest';
import type { AccessType } from '../../contract/access-type.js';
import { KnownError } from '../../contract/errors/known-error.js';
import type { RequestContext } from './context.js';
import { createCallerFactory, router } from './init.js';
import { accessProcedure } from './procedures.js';

/**
 * The *_AUTHENTICATION_REQUIRED family (spec section 8, "Project authentication"): a request with
 * no project credential is told which levels the procedure takes. No route of Latch today takes
 * exactly client+server or client+admin, so those two are reached through procedures built here.
 */

const COMBINATIONS: [AccessType[], string][] = [
  [['client'], 'CLIENT_AUTHENTICATION_REQUIRED'],
  [['server'], 'SERVER_AUTHENTICATION_REQUIRED'],
  [['admin'], 'ADMIN_AUTHENTICATION_REQUIRED'],
  [['client', 'server'], 'CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED'],
  [['server', 'client'], 'CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED'],
  [['client', 'admin'], 'CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED'],
  [['server', 'admin'], 'SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED'],
  [['client', 'server', 'admin'], 'CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED'],
];

/** A request that carried no project credential at all: both resolvers find nothing. */
const anonymous = { getAuth: async () => null, getProjectAuth: async () => null, requestId: 'test' } as unknown as RequestContext;

describe('access procedures without credentials', () => {
  it.each(COMBINATIONS)('a procedure for %j answers %s (401) and never runs', async (allowed, code) => {
    let ran = false;
    const app = router({
      probe: accessProcedure(...allowed).query(() => {
        ran = true;
        return 'ran';
      }),
    });
    const error = await createCallerFactory(app)(anonymous)
      .probe()
      .then(
        () => null,
        (e: { cause?: unknown }) => e.cause,
      );
    expect(error).toBeInstanceOf(KnownError);
    expect({ code: (error as KnownError).code, status: (error as KnownError).status }).toEqual({ code, status: 401 });
    expect(ran).toBe(false);
  });
});
