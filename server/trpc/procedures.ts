import { requireLiveSession } from '../access/policy.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { findInputProblem } from '../../contract/validation/schemas.js';
import type { AccessType, AuthContext } from '../access/context.js';
import { t } from './init.js';

/**
 * Refuses, before the input schema runs, input no schema should have to think about: NUL
 * characters, unpaired surrogates and absurd nesting (see findInputProblem). One place for every
 * procedure and both transports, path and query parameters included.
 */
async function refuseUnstorableInput(getRawInput: () => Promise<unknown>): Promise<void> {
  const problem = findInputProblem(await getRawInput());
  if (problem) throw new KnownErrors.SchemaError(`Request validation failed:\n  - ${problem.path} ${problem.message}`, { issues: [problem] });
}

const guardInput = t.middleware(async ({ getRawInput, next }) => {
  await refuseUnstorableInput(getRawInput);
  return next();
});

/** Open to anyone (health, JWKS, the refresh call that authenticates by its refresh token). */
export const publicProcedure = t.procedure.use(guardInput);

/** The error of a request without the credential a procedure needs, by the levels it allows (in this order). */
const ACCESS_ORDER: readonly AccessType[] = ['client', 'server', 'admin'];
const AUTHENTICATION_REQUIRED = {
  client: KnownErrors.ClientAuthenticationRequired,
  server: KnownErrors.ServerAuthenticationRequired,
  admin: KnownErrors.AdminAuthenticationRequired,
  'client,server': KnownErrors.ClientOrServerAuthenticationRequired,
  'client,admin': KnownErrors.ClientOrAdminAuthenticationRequired,
  'server,admin': KnownErrors.ServerOrAdminAuthenticationRequired,
};

function authenticationRequired(allowed: readonly AccessType[]) {
  const key = [...allowed].sort((a, b) => ACCESS_ORDER.indexOf(a) - ACCESS_ORDER.indexOf(b)).join(',');
  const Required = Object.hasOwn(AUTHENTICATION_REQUIRED, key) ? AUTHENTICATION_REQUIRED[key as keyof typeof AUTHENTICATION_REQUIRED] : null;
  return Required ? new Required() : new KnownErrors.ClientOrServerOrAdminAuthenticationRequired();
}

/**
 * A procedure open to the given access levels. The auth context is resolved from the x-latch-*
 * headers before the input is used; a missing or lower level is a catalogued error. When the
 * request carries a user's access token, its session must still be live (access/policy.ts): a
 * signed-out, revoked or deleted user's token answers ACCESS_TOKEN_EXPIRED on every such procedure.
 */
export function accessProcedure<const A extends readonly AccessType[]>(...allowed: A) {
  return accessProcedureWith({ ignoreAccessToken: false, liveSession: true }, ...allowed);
}

/** Admin access, also open to a webhooks token (POST /webhooks/latch-token): the /internal/webhooks/* routes. */
export function webhooksAdminProcedure() {
  return accessProcedureWith({ ignoreAccessToken: false, liveSession: true, scope: 'webhooks' }, 'admin');
}

/**
 * For the ways in (sign-in, sign-up, password reset, magic link): they act for a caller who is not
 * signed in yet, so an access token sent along is not checked for a live session here. The one
 * that uses it (upgrading an anonymous user in place) looks the session up itself, under a lock,
 * and signs up a new user when it is gone. Anything that acts for the signed-in user must use
 * accessProcedure instead; server/test/live-session.test.ts lists every procedure built with this.
 */
export function signInProcedure<const A extends readonly AccessType[]>(...allowed: A) {
  return accessProcedureWith({ ignoreAccessToken: false, liveSession: false }, ...allowed);
}

/** Like accessProcedure, but never reads the access token (the refresh call: it may have expired). */
export function projectAccessProcedure<const A extends readonly AccessType[]>(...allowed: A) {
  return accessProcedureWith({ ignoreAccessToken: true, liveSession: false }, ...allowed);
}

/** What a procedure's access middleware admits: read by the API reference (openapi-security.ts), never per request. */
export interface ProcedureAccess {
  allowed: readonly AccessType[];
  readsAccessToken: boolean;
  /** It acts for the signed-in user when one is sent (a live session is required): not a way in. */
  actsForUser: boolean;
}

const ACCESS_OF_MIDDLEWARE = new WeakMap<object, ProcedureAccess>();

/** The access levels of a built procedure (null: public), found by its access middleware. */
export function procedureAccess(procedure: { _def: { middlewares?: readonly unknown[] } }): ProcedureAccess | null {
  for (const middleware of procedure._def.middlewares ?? []) {
    const access = typeof middleware === 'function' ? ACCESS_OF_MIDDLEWARE.get(middleware) : undefined;
    if (access) return access;
  }
  return null;
}

function accessProcedureWith<const A extends readonly AccessType[]>(
  options: { ignoreAccessToken: boolean; liveSession: boolean; scope?: AuthContext['scope'] },
  ...allowed: A
) {
  // One middleware, not two: tRPC copies the whole context at every level of the chain.
  const builder = t.procedure.use(async ({ ctx, next, getRawInput }) => {
    const auth = await (options.ignoreAccessToken ? ctx.getProjectAuth() : ctx.getAuth());
    if (!auth) throw authenticationRequired(allowed);
    if (!allowed.includes(auth.type)) throw new KnownErrors.InsufficientAccessType(auth.type, [...allowed]);
    // A narrowed credential (a webhooks token) works only where the procedure accepts its scope.
    if (auth.scope !== undefined && auth.scope !== options.scope) throw new KnownErrors.WebhooksTokenOutOfScope();
    if (options.liveSession) await requireLiveSession(ctx.deps, auth);
    // The auth checks come first, then the input guard: the order of the former two middlewares.
    await refuseUnstorableInput(getRawInput);
    // Merged into the context by the caller (tRPC, or run-procedure.ts on REST): no copy here.
    return next({ ctx: { auth: auth as AuthContext & { type: A[number] } } });
  });
  const middleware = builder._def.middlewares.at(-1);
  if (middleware) ACCESS_OF_MIDDLEWARE.set(middleware, { allowed, readsAccessToken: !options.ignoreAccessToken, actsForUser: options.liveSession });
  return builder;
}

/** Any project credential: client (with a user's session), server or admin. */
export const clientProcedure = accessProcedure('client', 'server', 'admin');
/** Secret server key or admin. */
export const serverProcedure = accessProcedure('server', 'admin');
/** Super secret admin key or an owner's admin access token. */
export const adminProcedure = accessProcedure('admin');
