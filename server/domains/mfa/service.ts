/**
 * TOTP MFA (issue 16): enrolment verified by the server, the second factor at sign-in (a TOTP code
 * or a recovery code), the replay guard, and recovery codes. The sign-in gate itself is a step of
 * the sign-in policy (auth/sign-in.ts); it asks this file for an attempt code, and
 * POST /auth/mfa/sign-in (auth/mfa.ts) asks it to check the second factor.
 *
 * Where Latch differs from Stack Auth on purpose: the server makes the secret and turns MFA on only
 * after a code from the authenticator; a code is accepted once (its time step is claimed
 * atomically); 10 hashed single-use recovery codes; turning MFA off or enrolling again needs a
 * current code, a recovery code or a sign-in in the last 5 minutes.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { decrypt, encrypt } from '../../crypto/encryption.js';
import { hashSecret } from '../../crypto/tokens.js';
import { newTotpSecret, totpClock, totpSecretBase32, totpUri, verifyTotp } from '../../crypto/totp.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import { liveSessionUser, loadUserFor, resolveUserId } from '../../access/policy.js';
import { createCode, deleteUnusedCodesOfUser, limitCodeChecks } from '../verification/service.js';
import { requireRecentSignIn, TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS } from '../users/service.js';
import { lockUser } from '../contact-channels/queries.js';
import { findUser, updateUser } from '../users/queries.js';
import * as q from './queries.js';

/** The verification-code purpose of attempt codes. */
export const MFA_SIGN_IN_PURPOSE = 'mfa_sign_in';
/** An attempt code lives 5 minutes (issue 16; Stack Auth's value). */
export const MFA_ATTEMPT_TTL_MILLIS = 5 * 60 * 1000;
/** Wrong second factors per attempt code before VERIFICATION_CODE_MAX_ATTEMPTS_REACHED (Better Auth's 5). */
export const MFA_ATTEMPT_MAX_TRIES = 5;
/** How long a started enrolment waits for its first code. */
export const TOTP_ENROLLMENT_TTL_MILLIS = 10 * 60 * 1000;
/** Recovery codes per user. */
export const RECOVERY_CODE_COUNT = 10;
/** Upper-case letters and digits without look-alikes (0/O, 1/I): 5 bits a character, 50 bits a code. */
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** What a passed first factor established, carried by the attempt code to POST /auth/mfa/sign-in. */
export interface MfaAttemptData {
  user_id: string;
  is_new_user: boolean;
  method: string;
  /** The sign-in address the first factor proved, if any (already settled when the code was issued). */
  proven_channel_id: string | null;
}

/** A second factor: a code from the authenticator, or one of the recovery codes. */
export type SecondFactor = { totp: string } | { recovery_code: string };

const activeSecretAd = (tenancy: Tenancy, userId: string) => `${tenancy.id}:${userId}`;
const pendingSecretAd = (tenancy: Tenancy, userId: string) => `${tenancy.id}:${userId}:pending-totp`;

/** Issues the attempt code a gated sign-in answers with (in the sign-in's executor). */
export async function issueAttemptCode(db: Executor, tenancy: Tenancy, data: MfaAttemptData): Promise<string> {
  const issued = await createCode(db, tenancy, MFA_SIGN_IN_PURPOSE, data, MFA_ATTEMPT_TTL_MILLIS, { maxAttempts: MFA_ATTEMPT_MAX_TRIES });
  return issued.code;
}

function normalizeRecoveryCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * Checks a second factor of a user with MFA on, and uses it up: a TOTP code's time step is claimed
 * (a second use, even by a racing request, is refused), a recovery code is marked used. Anything
 * else is INVALID_TOTP_CODE. Returns which kind was used.
 */
export async function useSecondFactor(deps: Deps, db: Executor, tenancy: Tenancy, user: UserRow, factor: SecondFactor): Promise<'totp' | 'recovery_code'> {
  if (!user.requires_totp_mfa || !user.totp_secret_encrypted) throw new KnownErrors.InvalidTotpCode();
  if ('recovery_code' in factor) {
    const used = await q.useRecoveryCode(db, tenancy.id, user.id, hashSecret(normalizeRecoveryCode(factor.recovery_code)), new Date());
    if (!used) throw new KnownErrors.InvalidTotpCode();
    return 'recovery_code';
  }
  const secret = decrypt(deps.configKey, user.totp_secret_encrypted, activeSecretAd(tenancy, user.id));
  const state = await q.findTotpState(db, tenancy.id, user.id);
  const step = await verifyTotp(secret, factor.totp, state?.last_step ?? null);
  if (step === null || !(await q.claimTotpStep(db, tenancy.id, user.id, step))) throw new KnownErrors.InvalidTotpCode();
  return 'totp';
}

/** What a caller offers to prove the user when changing the second factor (see requireProof). */
type Proof = Partial<{ totp: string; recovery_code: string }>;

/**
 * A proof offered is a code to check, so it counts against the per-IP code-check limit
 * (limitCodeChecks) before anything else is done; a call without one checks no code.
 */
async function limitProofChecks(deps: Deps, auth: AuthContext, proof: Proof, ip: string | null): Promise<void> {
  if (proof.totp !== undefined || proof.recovery_code !== undefined) await limitCodeChecks(deps, auth.tenancy, ip);
}

/**
 * The proof a client needs to change its second factor: a current TOTP code or a recovery code
 * (when MFA is on), else a sign-in in the last 5 minutes (RECENT_SIGN_IN_REQUIRED). Server and
 * admin access need none (an import, or the owner resetting a locked-out user).
 */
async function requireProof(deps: Deps, db: Executor, auth: AuthContext, user: UserRow, proof: Proof): Promise<void> {
  if (auth.type !== 'client') return;
  if (proof.totp !== undefined) return void (await useSecondFactor(deps, db, auth.tenancy, user, { totp: proof.totp }));
  if (proof.recovery_code !== undefined) return void (await useSecondFactor(deps, db, auth.tenancy, user, { recovery_code: proof.recovery_code }));
  await requireRecentSignIn(db, auth, user.id, TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS);
}

/** The signed-in user, locked and read again in the transaction (MFA changes of one user are serialized). */
async function lockedSessionUser(deps: Deps, auth: AuthContext, trx: Executor): Promise<UserRow> {
  const user = await liveSessionUser(deps, auth, trx);
  await lockUser(trx, auth.tenancy.id, user.id);
  return (await findUser(trx, auth.tenancy.id, user.id)) ?? user;
}

export interface MfaStatus {
  requires_totp_mfa: boolean;
  totp_enrollment_pending: boolean;
  recovery_codes_total: number;
  recovery_codes_remaining: number;
  last_recovery_code_used_at_millis: number | null;
}

/** MFA status of a user: on or off, an enrolment waiting, recovery codes left and the last one used. */
export async function getMfaStatus(deps: Deps, auth: AuthContext, userIdParam: string): Promise<MfaStatus> {
  const user = await loadUserFor(deps, auth, resolveUserId(auth, userIdParam));
  const [state, codes] = await Promise.all([q.findTotpState(deps.db, auth.tenancy.id, user.id), q.countRecoveryCodes(deps.db, auth.tenancy.id, user.id)]);
  const pending = !!state?.pending_secret_encrypted && !!state.pending_expires_at && state.pending_expires_at.getTime() > Date.now();
  return {
    requires_totp_mfa: user.requires_totp_mfa,
    totp_enrollment_pending: pending,
    recovery_codes_total: user.requires_totp_mfa ? codes.total : 0,
    recovery_codes_remaining: user.requires_totp_mfa ? codes.remaining : 0,
    last_recovery_code_used_at_millis: user.requires_totp_mfa && codes.last_used_at ? codes.last_used_at.getTime() : null,
  };
}

export interface TotpEnrollment {
  secret_base32: string;
  otpauth_uri: string;
  expires_at_millis: number;
}

/**
 * Starts (or restarts) TOTP enrolment for the signed-in user: a new secret, kept pending (sealed)
 * until confirmTotpEnrollment gets a code for it. With MFA already on this replaces the secret, so
 * it needs the proof of requireProof.
 */
export async function startTotpEnrollment(deps: Deps, auth: AuthContext, proof: Proof, ip: string | null): Promise<TotpEnrollment> {
  await limitProofChecks(deps, auth, proof, ip);
  const secret = newTotpSecret();
  const expiresAt = new Date(Date.now() + TOTP_ENROLLMENT_TTL_MILLIS);
  // A refused proof has used nothing up (a code is claimed only when it is right), so refusals throw.
  const user = await deps.db.transaction().execute(async (trx) => {
    const user = await lockedSessionUser(deps, auth, trx);
    if (user.requires_totp_mfa) await requireProof(deps, trx, auth, user, proof);
    await q.setPendingSecret(trx, auth.tenancy.id, user.id, encrypt(deps.configKey, secret, pendingSecretAd(auth.tenancy, user.id)), expiresAt);
    return user;
  });
  const account = user.primary_email ?? user.display_name ?? user.id;
  return { secret_base32: totpSecretBase32(secret), otpauth_uri: totpUri(secret, auth.project.displayName, account), expires_at_millis: expiresAt.getTime() };
}

/**
 * Confirms the started enrolment with a current code for its secret: only now is MFA on. The code's
 * step is claimed (it cannot then sign in too), and 10 fresh recovery codes are returned, once.
 */
export async function confirmTotpEnrollment(deps: Deps, auth: AuthContext, totp: string, ip: string | null): Promise<{ recovery_codes: string[] }> {
  await limitCodeChecks(deps, auth.tenancy, ip);
  return deps.db.transaction().execute(async (trx) => {
    const user = await lockedSessionUser(deps, auth, trx);
    const state = await q.findTotpState(trx, auth.tenancy.id, user.id);
    if (!state?.pending_secret_encrypted || !state.pending_expires_at || state.pending_expires_at.getTime() <= Date.now())
      throw new KnownErrors.TotpEnrollmentNotStarted();
    const secret = decrypt(deps.configKey, state.pending_secret_encrypted, pendingSecretAd(auth.tenancy, user.id));
    const step = await verifyTotp(secret, totp, state.last_step);
    if (step === null || !(await q.claimTotpStep(trx, auth.tenancy.id, user.id, step))) throw new KnownErrors.InvalidTotpCode();
    await updateUser(trx, auth.tenancy.id, user.id, {
      totp_secret_encrypted: encrypt(deps.configKey, secret, activeSecretAd(auth.tenancy, user.id)),
      requires_totp_mfa: true,
    });
    await q.setPendingSecret(trx, auth.tenancy.id, user.id, null, null);
    return { recovery_codes: await replaceRecoveryCodes(trx, auth.tenancy, user.id) };
  });
}

async function replaceRecoveryCodes(trx: Executor, tenancy: Tenancy, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await q.deleteRecoveryCodes(trx, tenancy.id, userId);
  await q.insertRecoveryCodes(
    trx,
    codes.map((code) => ({ tenancy_id: tenancy.id, user_id: userId, id: randomUUID(), code_hash: hashSecret(normalizeRecoveryCode(code)) })),
  );
  return codes;
}

/** New recovery codes (the old ones stop working); a client needs requireProof's proof. */
export async function regenerateRecoveryCodes(deps: Deps, auth: AuthContext, proof: Proof, ip: string | null): Promise<{ recovery_codes: string[] }> {
  await limitProofChecks(deps, auth, proof, ip);
  return deps.db.transaction().execute(async (trx) => {
    const user = await lockedSessionUser(deps, auth, trx);
    if (!user.requires_totp_mfa) throw new KnownErrors.TotpEnrollmentNotStarted();
    await requireProof(deps, trx, auth, user, proof);
    return { recovery_codes: await replaceRecoveryCodes(trx, auth.tenancy, user.id) };
  });
}

/**
 * Turns MFA off: the secret, any enrolment in progress, the recovery codes and the user's
 * outstanding attempt codes go. A client needs requireProof's proof; the server and the console's
 * owner (admin) do not: that is how a user who lost their authenticator is let back in.
 */
export async function disableTotp(deps: Deps, auth: AuthContext, userIdParam: string, proof: Proof, ip: string | null): Promise<void> {
  await limitProofChecks(deps, auth, proof, ip);
  const userId = resolveUserId(auth, userIdParam);
  await deps.db.transaction().execute(async (trx) => {
    const user = await loadUserFor(deps, auth, userId, trx);
    await lockUser(trx, auth.tenancy.id, user.id);
    // Read again under the lock: the decision is made on the row as it is now.
    const fresh = (await findUser(trx, auth.tenancy.id, user.id)) ?? user;
    if (fresh.requires_totp_mfa) await requireProof(deps, trx, auth, fresh, proof);
    await clearMfa(trx, auth.tenancy, fresh.id);
  });
}

/** Removes every trace of a user's second factor (also used when a new secret is imported over it). */
export async function clearMfa(trx: Executor, tenancy: Tenancy, userId: string): Promise<void> {
  await updateUser(trx, tenancy.id, userId, { totp_secret_encrypted: null, requires_totp_mfa: false });
  await q.setPendingSecret(trx, tenancy.id, userId, null, null);
  await q.deleteRecoveryCodes(trx, tenancy.id, userId);
  await deleteUnusedCodesOfUser(trx, tenancy, MFA_SIGN_IN_PURPOSE, userId);
}

/** The TOTP clock, for tests (server/crypto/totp.ts). */
export { totpClock };
