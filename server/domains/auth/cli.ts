/**
 * CLI login (`/auth/cli/*`; spec section 4 "CLI login", section 7 "Sessions and CLI"; README
 * "CLI login"). A CLI asks for a pair of codes, shows the user a link to the app's
 * /handler/cli-auth-confirm?login_code=… page and polls with the other code; the user, signed in
 * in the browser, sees which app asks and approves or denies.
 *
 * Where this differs from Stack Auth, on purpose:
 * - The CLI gets a session of its own, started through the sign-in seam (startSession, method
 *   'cli') by the poll that picks the approval up. Stack copies the browser's own refresh token to
 *   the CLI, so signing one out signs out the other and a leaked CLI token is the browser's. Here
 *   no refresh token is stored on the request at all, and a `refresh_token` sent to complete (the
 *   spec's field) only says who approves.
 * - Both codes are stored as SHA-256 hashes; the request lives 10 minutes by default (not 2 hours).
 * - A poll faster than CLI_POLL_MIN_INTERVAL_MILLIS per code answers RATE_LIMITED (429,
 *   Retry-After: 1), RFC 8628's slow_down in the catalogue's words.
 * - The user may deny; the poll then ends in CLI_AUTH_ERROR.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { CLI_LOGIN_DEFAULT_EXPIRY_MILLIS, CLI_POLL_MIN_INTERVAL_MILLIS } from '../../../contract/schemas/cli.js';
import type { AuthContext } from '../../access/context.js';
import { hashSecret, randomSecret } from '../../crypto/tokens.js';
import { findLiveSessionByTokenHash } from '../sessions/queries.js';
import { findUser } from '../users/queries.js';
import * as q from './queries.js';
import { startSession } from './sign-in.js';

/** Requests are kept this long past their expiry, so a late poll hears "expired" or "used", not "no such code". */
const KEEP_AFTER_EXPIRY_SECONDS = 24 * 60 * 60;
/** One clean-up in this many new requests, of at most this many rows: the table stays small without a timer. */
const CLEAN_UP_ONE_IN = 20;
const CLEAN_UP_BATCH = 500;

export interface CliLoginRequest {
  polling_code: string;
  login_code: string;
  expires_at: number;
}

/** `POST /auth/cli`: a new request, waiting for the user. The codes are returned once and stored hashed. */
export async function createCliLogin(deps: Deps, auth: AuthContext, expiresInMillis: number | undefined, ip: string | null): Promise<CliLoginRequest> {
  const pollingCode = randomSecret();
  const loginCode = randomSecret();
  const expiresAt = new Date(Date.now() + (expiresInMillis ?? CLI_LOGIN_DEFAULT_EXPIRY_MILLIS));
  await q.insertCliAttempt(deps.db, {
    tenancy_id: auth.tenancy.id,
    id: randomUUID(),
    polling_code_hash: hashSecret(pollingCode),
    login_code_hash: hashSecret(loginCode),
    requester_ip: ip,
    expires_at: expiresAt,
  });
  if (Math.random() * CLEAN_UP_ONE_IN < 1) await q.deleteOldCliAttempts(deps.db, KEEP_AFTER_EXPIRY_SECONDS, CLEAN_UP_BATCH);
  return { polling_code: pollingCode, login_code: loginCode, expires_at: expiresAt.getTime() };
}

export type CliPollResult = { status: 'waiting' } | { status: 'success'; refresh_token: string };

/**
 * `POST /auth/cli/poll`: `waiting` until the user decides; after an approval, once, `success` with
 * the refresh token of a new session for the approving user (the request becomes `used` in the
 * same transaction, under the row lock, so two racing polls cannot both get one).
 */
export async function pollCliLogin(deps: Deps, auth: AuthContext, pollingCode: string, ip: string | null): Promise<CliPollResult> {
  const tenancy = auth.tenancy;
  return deps.db.transaction().execute(async (trx) => {
    const attempt = await q.lockCliAttempt(trx, tenancy.id, 'polling_code_hash', hashSecret(pollingCode), CLI_POLL_MIN_INTERVAL_MILLIS);
    if (!attempt) throw new KnownErrors.InvalidPollingCode();
    if (attempt.too_soon) throw new KnownErrors.RateLimited(Math.ceil(CLI_POLL_MIN_INTERVAL_MILLIS / 1000));
    await q.markCliAttemptPolled(trx, tenancy.id, attempt.id);
    // Terminal states first: a used request stays used after it expires.
    if (attempt.state === 'used') throw new KnownErrors.CliAuthUsedError();
    if (attempt.expired) throw new KnownErrors.CliAuthExpiredError();
    if (attempt.state === 'denied') throw new KnownErrors.CliAuthError('The CLI login was denied in the browser.');
    if (attempt.state === 'waiting') return { status: 'waiting' as const };
    const user = attempt.approved_user_id ? await findUser(trx, tenancy.id, attempt.approved_user_id) : undefined;
    // The approving user was deleted in between (the row would be gone with them; belt and braces).
    if (!user) throw new KnownErrors.CliAuthError('The user who approved this CLI login no longer exists.');
    await q.setCliAttemptState(trx, tenancy.id, attempt.id, { state: 'used' });
    // startSession, not completeSignIn: the approving browser session already passed the sign-in
    // policy (the MFA gate included) when it signed in, and a CLI has nobody to answer a challenge.
    const session = await startSession(deps, trx, { tenancy, user, method: 'cli', isNewUser: false, ip });
    return { status: 'success' as const, refresh_token: session.refresh_token };
  });
}

export interface CliLoginDetails {
  status: 'waiting' | 'approved' | 'denied';
  project_display_name: string;
  requested_at: number;
  requester_ip: string | null;
  expires_at: number;
}

/**
 * `POST /auth/cli/complete`, from the confirm page of a signed-in user: `check` reads the request
 * (which app asks, when, from where), `complete` approves it for that user, `deny` refuses it. Only
 * a waiting, unexpired request can be decided, once.
 */
export async function completeCliLogin(
  deps: Deps,
  auth: AuthContext,
  input: { login_code: string; mode?: 'check' | 'complete' | 'deny'; refresh_token?: string },
): Promise<CliLoginDetails> {
  const tenancy = auth.tenancy;
  const userId = await approvingUserId(deps, auth, input.refresh_token);
  const mode = input.mode ?? 'complete';
  return deps.db.transaction().execute(async (trx) => {
    const attempt = await q.lockCliAttempt(trx, tenancy.id, 'login_code_hash', hashSecret(input.login_code), CLI_POLL_MIN_INTERVAL_MILLIS);
    if (!attempt) throw new KnownErrors.CliAuthError('This CLI login link is invalid. Start the login from the CLI again.');
    if (attempt.state !== 'waiting') throw new KnownErrors.CliAuthUsedError();
    if (attempt.expired) throw new KnownErrors.CliAuthExpiredError();
    let status: CliLoginDetails['status'] = 'waiting';
    if (mode === 'complete') {
      await q.setCliAttemptState(trx, tenancy.id, attempt.id, { state: 'approved', approved_user_id: userId });
      status = 'approved';
    } else if (mode === 'deny') {
      await q.setCliAttemptState(trx, tenancy.id, attempt.id, { state: 'denied', approved_user_id: null });
      status = 'denied';
    }
    return {
      status,
      project_display_name: auth.project.displayName,
      requested_at: attempt.created_at.getTime(),
      requester_ip: attempt.requester_ip,
      expires_at: attempt.expires_at.getTime(),
    };
  });
}

/**
 * Who approves: the signed-in user of the access token (its session is checked live by the
 * procedure), or, for callers that follow the spec's request shape, the user of a live session's
 * refresh token. That token identifies the approver only; it is never handed to the CLI. An
 * anonymous user cannot approve.
 */
async function approvingUserId(deps: Deps, auth: AuthContext, refreshToken: string | undefined): Promise<string> {
  let approver: { id: string; isAnonymous: boolean } | undefined;
  if (auth.user) approver = { id: auth.user.sub, isAnonymous: auth.user.is_anonymous };
  else if (refreshToken) {
    const session = await findLiveSessionByTokenHash(deps.db, auth.tenancy.id, hashSecret(refreshToken));
    if (!session) throw new KnownErrors.RefreshTokenNotFoundOrExpired();
    approver = { id: session.id, isAnonymous: session.is_anonymous };
  }
  // An anonymous user counts as signed out (spec section 4): a guest cannot hand a CLI a session.
  if (!approver || approver.isAnonymous) throw new KnownErrors.UserAuthenticationRequired();
  return approver.id;
}
