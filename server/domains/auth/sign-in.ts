/**
 * The sign-in seam: every way in ends in `completeSignIn` (or, for the server's own sessions,
 * `startSession`), the only code that creates a session row.
 *
 *   password sign-in / sign-up   auth/password.ts     completeSignIn
 *   anonymous sign-up            auth/anonymous.ts    completeSignIn
 *   magic link / one-time code   auth/magic-link.ts   completeSignIn (with the address it proved)
 *   POST /auth/sessions (server) sessions/create.ts   startSession (no sign-in policy, see there)
 *
 * A new way in (OAuth, passkey, CLI, impersonation) finds or creates its user in its own file and
 * ends here with its `SignInMethod`. A way in that calls completeSignIn inside a transaction opens
 * it with `signInTransaction` (or wraps the call in `holdSignInRefusal` when another helper opens
 * the transaction, as magic-link.ts does): the MFA gate's refusal must commit what the first
 * factor did (the attempt code, an anonymous upgrade, a used magic link) and only then be thrown.
 * completeSignIn refuses to run in a transaction opened any other way.
 *   POST /auth/mfa/sign-in       auth/mfa.ts          completeSignIn (with the second factor it checked) A rule every sign-in must pass is a step of `SIGN_IN_POLICY`;
 * what must happen whenever a session starts (an audit event, a `session.created` webhook) goes in
 * `startSession`, which both paths share.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { hashSecret, randomSecret } from '../../crypto/tokens.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { DEFAULT_QUOTAS } from '../../env.js';
import type { Tenancy } from '../../access/context.js';
import { proveChannel } from '../contact-channels/claims.js';
import type { ContactChannelRow } from '../contact-channels/queries.js';
import { mintAccessToken } from '../sessions/access-token.js';
import { insertSessionKeepingNewest } from '../sessions/queries.js';
import { findUser } from '../users/queries.js';
import { issueAttemptCode } from '../mfa/service.js';
import { emitWebhookEvent } from '../webhooks/events.js';

/** How a session came to be. `server`: a server key created it (POST /auth/sessions). */
export type SignInMethod = 'password' | 'anonymous' | 'magic_link' | 'oauth' | 'passkey' | 'cli' | 'server' | 'impersonation';

export interface SignInAttempt {
  tenancy: Tenancy;
  /** The account signing in, as the way in found or created it. */
  user: UserRow;
  method: SignInMethod;
  /** The account was created by this sign-in (the response's is_new_user). */
  isNewUser: boolean;
  ip: string | null;
  /**
   * A sign-in address this sign-in proved by a code sent to it (the magic link; next, an OAuth
   * provider's verified email). Its account's holder is whoever showed the proof.
   */
  provenChannel?: ContactChannelRow;
  /** The second factor POST /auth/mfa/sign-in checked for this sign-in (the MFA gate lets it through). */
  secondFactor?: 'totp' | 'recovery_code';
}

/**
 * One rule of the sign-in policy. Runs in the sign-in's executor (its transaction, when it has
 * one) before the session exists; refuses by throwing a KnownError, and returns the user as it is
 * after the step when the step changed it (the token carries the user's fields).
 */
export interface SignInStep {
  name: string;
  check(deps: Deps, db: Executor, attempt: SignInAttempt): Promise<UserRow | undefined>;
}

/**
 * The verified-email rule at sign-in (contact-channels/claims.ts, README "Security model"): a
 * proof of the address shown by someone without a session is a stranger's proof. If the account's
 * holder never proved the address, every credential its claimant set is revoked before the prover
 * gets a session, and other accounts' claims on the address are removed. The caller holds the
 * user row lock (contact-channels/queries.ts, lockUser).
 */
const verifiedEmailRule: SignInStep = {
  name: 'verified-email',
  async check(_deps, db, attempt) {
    if (!attempt.provenChannel) return undefined;
    await proveChannel(db, attempt.tenancy, attempt.provenChannel, 'stranger');
    const user = await findUser(db, attempt.tenancy.id, attempt.user.id);
    if (!user) throw new KnownErrors.UserNotFound();
    return user;
  },
};

/**
 * The MFA gate (spec, "Auth"; issue 16): a user with requires_totp_mfa gets no session from a
 * first factor, whichever it was. The sign-in answers MULTI_FACTOR_AUTHENTICATION_REQUIRED with
 * details.attempt_code: a verification code (hashed, single use, 5 minutes, 5 tries) carrying what
 * the first factor established (user, is_new_user, method, proven address), which
 * POST /auth/mfa/sign-in exchanges, with a TOTP or recovery code, for the session (auth/mfa.ts).
 * It runs after the verified-email rule: a stranger's proof of the address has already revoked a
 * claimant's TOTP, and the attempt code is about the user as that rule left it. Server sessions
 * (POST /auth/sessions, startSession) do not meet it: a secret server key already acts for every
 * user of the project.
 */
const mfaGate: SignInStep = {
  name: 'mfa',
  async check(_deps, db, attempt) {
    if (!attempt.user.requires_totp_mfa || attempt.secondFactor) return undefined;
    const attemptCode = await issueAttemptCode(db, attempt.tenancy, {
      user_id: attempt.user.id,
      is_new_user: attempt.isNewUser,
      method: attempt.method,
      proven_channel_id: attempt.provenChannel?.id ?? null,
    });
    throw new KnownErrors.MultiFactorAuthenticationRequired(attemptCode);
  },
};

/**
 * The project's sign-in policy, in order. A new rule goes before the MFA gate, so that it applies
 * both to the first factor and again when the second factor completes the sign-in.
 */
export const SIGN_IN_POLICY: readonly SignInStep[] = [verifiedEmailRule, mfaGate];

/**
 * The transactions whose way in holds back sign-in refusals until they have committed. A set of
 * executors, not an AsyncLocalStorage: on Node 20 one AsyncLocalStorage that has ever run turns on
 * async_hooks' promise hooks for the whole process, a cost every promise of every request then pays
 * (≈ 40 % more instructions per refresh, bench/instructions.ts).
 */
const heldTransactions = new WeakSet<Executor>();

/** The outcome of a sign-in inside a transaction: a session, or a refusal to throw after the commit. */
export type HeldSignIn<R> = { ok: true; value: R } | { ok: false; refusal: InstanceType<typeof KnownErrors.MultiFactorAuthenticationRequired> };

/**
 * Runs a way in's transaction body (in `trx`) so that an MFA refusal does not roll it back: the
 * body's work (the attempt code above all) commits, and settleSignIn throws the refusal afterwards.
 * Any other error still rolls back.
 */
export async function holdSignInRefusal<R>(trx: Executor, body: () => Promise<R>): Promise<HeldSignIn<R>> {
  heldTransactions.add(trx);
  try {
    return { ok: true, value: await body() };
  } catch (error) {
    if (error instanceof KnownErrors.MultiFactorAuthenticationRequired) return { ok: false, refusal: error };
    throw error;
  } finally {
    heldTransactions.delete(trx);
  }
}

/** The session of a held sign-in, or its refusal thrown (after the transaction committed). */
export function settleSignIn<R>(held: HeldSignIn<R>): R {
  if (!held.ok) throw held.refusal;
  return held.value;
}

/** A way in's transaction: commits the first factor's work even when the MFA gate refuses. */
export async function signInTransaction<R>(deps: Deps, body: (trx: Executor) => Promise<R>): Promise<R> {
  return settleSignIn(await deps.db.transaction().execute((trx) => holdSignInRefusal(trx, () => body(trx))));
}

/** The auth response entity (spec: "Sign-in and sign-up responses follow the auth response entity"). */
export interface AuthResponse {
  access_token: string;
  refresh_token: string;
  user_id: string;
  is_new_user: boolean;
}

/**
 * Ends every end user's way in: applies the sign-in policy, then starts the session. In the
 * caller's executor: the way in's transaction when it has one, so a refusal rolls back the user
 * it created, except the MFA gate's, which signInTransaction lets commit (a user who passed the
 * first factor keeps what it did, and gets an attempt code instead of a session).
 */
export async function completeSignIn(deps: Deps, db: Executor, attempt: SignInAttempt): Promise<AuthResponse> {
  // Loud, for every sign-in and not only gated ones: a way in that opens its transaction with
  // plain db.transaction() would roll back the attempt code it hands out.
  if (db.isTransaction && !heldTransactions.has(db))
    throw new Error('completeSignIn in a transaction needs signInTransaction or holdSignInRefusal (auth/sign-in.ts)');
  let current = attempt;
  for (const step of SIGN_IN_POLICY) {
    const user = await step.check(deps, db, current);
    if (user) current = { ...current, user };
  }
  return startSession(deps, db, current);
}

/** Default session lifetime: one year (spec section 9, "Default server session expiry"). */
export const DEFAULT_SESSION_MILLIS = 31_536_000_000;

/**
 * Sessions one user may hold (LATCH_MAX_SESSIONS_PER_USER); a new one signs the oldest out. Set
 * once at start-up (setMaxSessionsPerUser), like the password hashing limits: sessions are issued
 * with an executor, not the deps, from every way in.
 */
let maxSessionsPerUser = DEFAULT_QUOTAS.sessionsPerUser;

/** Called once at start-up with env.quotas.sessionsPerUser. */
export function setMaxSessionsPerUser(max: number): void {
  maxSessionsPerUser = Math.max(1, Math.floor(max));
}

/**
 * Starts a session for a user whom a way in (or the server) has already let in: creates the
 * session row, and mints its tokens. The refresh token (224 random bits) is returned once and
 * stored hashed. Past maxSessionsPerUser the user's oldest sessions are deleted (signed out): a
 * client that signs in in a loop cannot grow the table without bound.
 */
export async function startSession(
  deps: Deps,
  db: Executor,
  attempt: Omit<SignInAttempt, 'provenChannel'> & { isImpersonation?: boolean; expiresInMillis?: number },
): Promise<AuthResponse> {
  const { tenancy, user } = attempt;
  const refreshToken = randomSecret();
  const sessionId = randomUUID();
  const expiresAt = new Date(Date.now() + (attempt.expiresInMillis ?? DEFAULT_SESSION_MILLIS));
  await insertSessionKeepingNewest(
    db,
    {
      tenancy_id: tenancy.id,
      id: sessionId,
      user_id: user.id,
      refresh_token_hash: hashSecret(refreshToken),
      is_impersonation: attempt.isImpersonation ?? false,
      expires_at: expiresAt,
      last_used_ip: attempt.ip,
    },
    maxSessionsPerUser,
  );
  // session.created, with the way in, in the caller's executor (the sign-in's transaction where it has one).
  await emitWebhookEvent(db, tenancy.id, 'session.created', {
    id: sessionId,
    user_id: user.id,
    sign_in_method: attempt.method,
    is_impersonation: attempt.isImpersonation ?? false,
  });
  return {
    access_token: await mintAccessToken(deps, tenancy, user, sessionId, expiresAt),
    refresh_token: refreshToken,
    user_id: user.id,
    is_new_user: attempt.isNewUser,
  };
}
