import { randomInt, randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Database } from '../../db/kysely.js';
import type { VerificationCodeRow } from '../../db/schema.js';
import { constantTimeEqual, hashSecret, randomSecret } from '../../crypto/tokens.js';
import type { KnownError } from '../../../contract/errors/known-error.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { ProjectRecord, Tenancy } from '../../access/context.js';
import { isTrustedRedirectUrl } from '../../../contract/validation/urls.js';
import type { Executor } from '../../db/executor.js';
import { limitCodeCheck } from '../rate-limits/service.js';
import * as q from './queries.js';

/**
 * Verification codes for every purpose (team invitations, email verification, password reset,
 * magic links / one-time codes). A code is 224 random bits (a one-time code adds a 6-character
 * short code, see createCode), shown once and stored as its SHA-256, single use, expiring and
 * attempt-limited. Every function takes the caller's
 * transaction, so using a code and the action it authorises commit or roll back together.
 */

/** How often one code may be checked or used before MAX_ATTEMPTS_REACHED, unless the purpose says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 20;

/**
 * What `data` holds in the row. The attempt limit travels with the code (purposes differ), next to
 * the purpose's own payload, so the table stays the shape the email issue builds on.
 */
interface StoredData {
  max_attempts: number;
  payload: unknown;
  /** One-time codes only: SHA-256 of the short code the user types (see createCode's `otp`). */
  otp_hash?: string;
}

/** Length of the short code a person types (magic link / one-time code email). */
export const OTP_LENGTH = 6;
/** Upper-case letters and digits without the look-alikes 0/O and 1/I: 32 symbols, 30 bits per code. */
const OTP_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Wrong guesses of a one-time code before MAX_ATTEMPTS_REACHED: 5 in 2^30 is a negligible chance. */
export const OTP_MAX_ATTEMPTS = 5;

export interface IssuedCode {
  id: string;
  /** The plaintext code: put it in the link or the email, never store it. */
  code: string;
  /** One-time codes only: the short code to show in the email (`code` is this followed by the nonce). */
  otp: string | null;
  /** One-time codes only: what the browser that asked for the code keeps, to send with the typed short code. */
  nonce: string | null;
  expiresAt: Date;
}

export interface VerifiedCode<T> {
  id: string;
  data: T;
  expiresAt: Date;
  createdAt: Date;
}

function randomOtp(): string {
  let otp = '';
  for (let i = 0; i < OTP_LENGTH; i++) otp += OTP_ALPHABET[randomInt(OTP_ALPHABET.length)];
  return otp;
}

/**
 * Issues a code. With `otp`, the code is a one-time code: a 6-character short code a person can
 * type, followed by a 224-bit nonce. The row is found by the nonce alone (its hash is code_hash),
 * and the short code is compared against its own hash. The emailed link carries the whole code;
 * the browser that asked for it keeps the nonce and sends it with the typed short code. So the
 * short code is only ever tried against its own row (a guess cannot hit another user's code), and
 * each wrong guess counts towards OTP_MAX_ATTEMPTS.
 */
export async function createCode(
  trx: Executor,
  tenancy: Tenancy,
  purpose: string,
  data: unknown,
  ttlMillis: number,
  options: { maxAttempts?: number; id?: string; otp?: boolean } = {},
): Promise<IssuedCode> {
  const secret = randomSecret();
  const otp = options.otp ? randomOtp() : null;
  const id = options.id ?? randomUUID();
  const expiresAt = new Date(Date.now() + ttlMillis);
  const stored: StoredData = {
    max_attempts: options.maxAttempts ?? (otp ? OTP_MAX_ATTEMPTS : DEFAULT_MAX_ATTEMPTS),
    payload: data,
    ...(otp ? { otp_hash: hashSecret(otp) } : {}),
  };
  await q.insertCode(trx, { tenancy_id: tenancy.id, id, purpose, code_hash: hashSecret(secret), data: stored, expires_at: expiresAt });
  return { id, code: otp ? `${otp}${secret}` : secret, otp, nonce: otp ? secret : null, expiresAt };
}

/** The row a code names, locked: by the whole code, or (one-time codes) by the nonce after the short code. */
async function lockCode(trx: Executor, tenancy: Tenancy, code: string): Promise<{ row: VerificationCodeRow; otp: string | null } | null> {
  const row = await q.lockCodeByHash(trx, tenancy.id, hashSecret(code));
  if (row) return { row, otp: null };
  if (code.length <= OTP_LENGTH) return null;
  const byNonce = await q.lockCodeByHash(trx, tenancy.id, hashSecret(code.slice(OTP_LENGTH)));
  // Only a one-time code is split this way: anything glued in front of a plain code is not that code.
  if (!byNonce || (byNonce.data as StoredData).otp_hash === undefined) return null;
  return { row: byNonce, otp: code.slice(0, OTP_LENGTH) };
}

/**
 * Finds and locks the code, then applies the state checks in a fixed order: not found (also for
 * another purpose or another project, so a code never works outside the flow it was made for),
 * already used, expired, attempts exhausted. Nothing is written when a check fails.
 */
type CodeOutcome<T> = { ok: true; verified: VerifiedCode<T> } | { ok: false; error: KnownError };

async function useCode<T>(trx: Executor, tenancy: Tenancy, purpose: string, code: string, markUsed: boolean): Promise<CodeOutcome<T>> {
  const found = await lockCode(trx, tenancy, code);
  const fail = (error: KnownError): CodeOutcome<T> => ({ ok: false, error });
  if (!found || found.row.purpose !== purpose) return fail(new KnownErrors.VerificationCodeNotFound());
  const { row } = found;
  if (row.used_at) return fail(new KnownErrors.VerificationCodeAlreadyUsed());
  if (row.expires_at.getTime() <= Date.now()) return fail(new KnownErrors.VerificationCodeExpired());
  const stored = row.data as StoredData;
  if (row.attempt_count >= stored.max_attempts) return fail(new KnownErrors.VerificationCodeMaxAttemptsReached());
  if (stored.otp_hash !== undefined) {
    // Upper-cased: people type the short code in either case. Compared in constant time.
    const typed = found.otp === null ? '' : hashSecret(found.otp.toUpperCase());
    if (!constantTimeEqual(typed, stored.otp_hash)) {
      // A wrong guess uses up an attempt (withCode commits it); the last one says so at once.
      await q.recordAttempt(trx, tenancy.id, row.id, { markUsed: false });
      return fail(
        row.attempt_count + 1 >= stored.max_attempts ? new KnownErrors.VerificationCodeMaxAttemptsReached() : new KnownErrors.VerificationCodeNotFound(),
      );
    }
  }
  await q.recordAttempt(trx, tenancy.id, row.id, { markUsed });
  return { ok: true, verified: { id: row.id, data: stored.payload as T, expiresAt: row.expires_at, createdAt: row.created_at } };
}

async function usedOrThrow<T>(outcome: Promise<CodeOutcome<T>>): Promise<VerifiedCode<T>> {
  const result = await outcome;
  if (!result.ok) throw result.error;
  return result.verified;
}

/**
 * Runs `action` with a verified code, in one transaction: the code is used (or, for `check`,
 * counted) together with what it authorises. Unlike checkCode/consumeCode inside a caller's
 * transaction, a wrong guess of a one-time code is committed as a used-up attempt before the
 * error is thrown; use this for every one-time code.
 */
export async function withCode<T, R>(
  db: Database,
  tenancy: Tenancy,
  purpose: string,
  code: string,
  mode: 'check' | 'consume',
  action: (trx: Executor, verified: VerifiedCode<T>) => Promise<R>,
): Promise<R> {
  const result = await db.transaction().execute(async (trx): Promise<{ ok: true; value: R } | { ok: false; error: KnownError }> => {
    const outcome = await useCode<T>(trx, tenancy, purpose, code, mode === 'consume');
    if (!outcome.ok) return outcome;
    return { ok: true, value: await action(trx, outcome.verified) };
  });
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * REDIRECT_URL_NOT_WHITELISTED unless `url` is a trusted domain of the project (or localhost while
 * allow_localhost is on): every link Latch emails goes through here before anything is written.
 * Takes the project, not its config, because production mode refuses localhost and bare-IP
 * callbacks whatever the config allows.
 */
export function assertTrustedCallbackUrl(project: Pick<ProjectRecord, 'config' | 'isProductionMode'>, url: string): void {
  const { config, isProductionMode } = project;
  if (!isTrustedRedirectUrl(url, { domains: config.domains, allowLocalhost: config.allow_localhost, productionMode: isProductionMode }))
    throw new KnownErrors.RedirectUrlNotWhitelisted(url);
}

/**
 * Counts one code check against the caller's IP (RATE_LIMITED past the limit): call it at the top
 * of every route that checks or uses a code, before opening the transaction. Not inside it: a
 * wrong guess rolls that transaction back, and the count with it — the very attempt to count.
 */
export function limitCodeChecks(deps: Deps, tenancy: Tenancy, ip: string | null): Promise<void> {
  return limitCodeCheck(deps, tenancy, ip);
}

/** Validates a code without using it up (check-code and details calls); counts as one attempt. */
export function checkCode<T>(trx: Executor, tenancy: Tenancy, purpose: string, code: string): Promise<VerifiedCode<T>> {
  return usedOrThrow(useCode<T>(trx, tenancy, purpose, code, false));
}

/** Validates and uses up a code: a second use is ALREADY_USED. */
export function consumeCode<T>(trx: Executor, tenancy: Tenancy, purpose: string, code: string): Promise<VerifiedCode<T>> {
  return usedOrThrow(useCode<T>(trx, tenancy, purpose, code, true));
}

/**
 * Uses up a code that checkCode already verified (and counted) in this transaction: for flows where
 * the code is only half the proof (an MFA attempt code and its TOTP), so a wrong second half costs
 * an attempt but leaves the code usable.
 */
export function markCodeUsed(trx: Executor, tenancy: Tenancy, id: string): Promise<void> {
  return q.markCodeUsed(trx, tenancy.id, id);
}

/** Withdraws a user's other unused codes of a purpose (after a password reset, the older reset links). */
export function deleteUnusedCodesOfUser(trx: Executor, tenancy: Tenancy, purpose: string, userId: string): Promise<void> {
  return q.deleteUnusedCodesOfUser(trx, tenancy.id, purpose, userId);
}

/** Withdraws codes (a revoked invitation): they become CODE_NOT_FOUND. */
export function deleteCodes(trx: Executor, tenancy: Tenancy, ids: readonly string[]): Promise<void> {
  return q.deleteCodes(trx, tenancy.id, ids);
}

/** `callbackUrl` with `code` set as a query parameter (an existing `code` is replaced). */
export function linkWithCode(callbackUrl: string, code: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set('code', code);
  return url.toString();
}

/** What an email about an issued code says of it: the link that carries it, and when it stops working. */
export function codeLink(callbackUrl: string, issued: IssuedCode): { link: string; expiresAt: Date } {
  return { link: linkWithCode(callbackUrl, issued.code), expiresAt: issued.expiresAt };
}
