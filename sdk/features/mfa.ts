/**
 * TOTP MFA (all levels): finishing a sign-in that needed a second factor, enrolment (the server
 * makes the secret and checks the first code), turning it off, and recovery codes. A server or
 * admin app reads any user's status and resets a user's MFA by `userId`.
 */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore, type SignInResult } from '../core.js';
import { type ExpectedErrors, KnownErrors, type Result, VERIFICATION_CODE_ERRORS, type VerificationCodeError, toResult } from '../errors.js';
import type { RouterOutputs } from '../transport.js';

/** A user's MFA: on or off, an enrolment waiting, recovery codes left and when one was last used. */
export type MfaStatus = RouterOutputs['mfa']['status'];
/** A started enrolment: show `otpauthUri` as a QR code (and `secretBase32` for typing). */
export interface TotpEnrollment {
  secretBase32: string;
  otpauthUri: string;
  expiresAtMillis: number;
}
/** What proves the user to change their second factor; none: a sign-in in the last 5 minutes. */
export interface MfaProof {
  totp?: string;
  recoveryCode?: string;
}

/** Why `signInWithMfa` failed: a wrong (or replayed) code, or the attempt code is unknown, used, expired or out of tries. */
export type MfaSignInError = ExpectedErrors<'InvalidTotpCode'> | VerificationCodeError;
/** Why a change of the second factor was refused: a wrong proof, or no proof and an old sign-in. */
export type MfaProofError = ExpectedErrors<'InvalidTotpCode' | 'RecentSignInRequired'>;
/** Why `confirmTotpEnrollment` failed: a wrong code, or no enrolment started (or it expired). */
export type TotpConfirmError = ExpectedErrors<'InvalidTotpCode' | 'TotpEnrollmentNotStarted'>;

const MFA_SIGN_IN_ERRORS = [KnownErrors.InvalidTotpCode, ...VERIFICATION_CODE_ERRORS];
const PROOF_ERRORS = [KnownErrors.InvalidTotpCode, KnownErrors.RecentSignInRequired];
const CONFIRM_ERRORS = [KnownErrors.InvalidTotpCode, KnownErrors.TotpEnrollmentNotStarted];

const proofBody = (proof: MfaProof) => ({
  ...(proof.totp !== undefined ? { totp: proof.totp } : {}),
  ...(proof.recoveryCode !== undefined ? { recovery_code: proof.recoveryCode } : {}),
});

/** TOTP MFA of the signed-in user (and, for server and admin apps, of any user by id). */
export abstract class MfaFeature extends AppCore {
  /**
   * Finishes a sign-in that threw `MultiFactorAuthenticationRequired`: its
   * `details.attempt_code` with a code from the authenticator (or a recovery code). Stores the
   * session like the other sign-ins; `is_new_user` is the first step's.
   *
   * @example
   * try { await app.signInWithPassword({ email, password }); }
   * catch (e) { if (e instanceof KnownErrors.MultiFactorAuthenticationRequired) attempt = e.details.attempt_code; }
   * const result = await app.signInWithMfa({ attemptCode: attempt, totp: '123456' });
   */
  async signInWithMfa(input: { attemptCode: string; totp?: string; recoveryCode?: string }): Promise<Result<SignInResult, MfaSignInError>> {
    await this.session.peek(); // an app without a token store fails here, before a session is made
    const body =
      input.recoveryCode !== undefined
        ? { type: 'recovery_code' as const, recovery_code: input.recoveryCode, code: input.attemptCode }
        : { type: 'totp' as const, totp: input.totp ?? '', code: input.attemptCode };
    return toResult(this.startSession(this.call((context) => this.trpc.auth.mfaSignIn.mutate(body, { context }), { access: 'client' })), MFA_SIGN_IN_ERRORS);
  }

  /**
   * A user's MFA status as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.mfaStatusQuery(), (state) => console.log(state.data?.recovery_codes_remaining));
   */
  mfaStatusQuery(options: { userId?: string } = {}): LatchQuery<MfaStatus> {
    const input = { user_id: options.userId ?? 'me' };
    const useSession = this.sessionFor(options.userId);
    return defineQuery(useSession ? this.sessionKey('mfa.status', input) : this.appKey('mfa.status', input), () =>
      this.call((context) => this.trpc.mfa.status.query(input, { context }), { session: useSession }),
    );
  }

  /**
   * A user's MFA status (default: the signed-in user's).
   *
   * @example
   * const { requires_totp_mfa, recovery_codes_remaining } = await app.getMfaStatus();
   */
  async getMfaStatus(options: { userId?: string } = {}): Promise<MfaStatus> {
    return this.queryClient.fetchQuery(this.mfaStatusQuery(options));
  }

  /**
   * Starts TOTP enrolment: the server makes a secret and keeps it pending until
   * `confirmTotpEnrollment` gets a code for it. With MFA already on this replaces it, and needs
   * a proof (a current code or a recovery code) unless the user signed in in the last 5 minutes.
   *
   * @example
   * const started = await app.startTotpEnrollment();
   * if (started.status === 'ok') showQr(started.data.otpauthUri);
   */
  async startTotpEnrollment(proof: MfaProof = {}): Promise<Result<TotpEnrollment, MfaProofError>> {
    const run = this.mutate(['mfa.'], (context) => this.trpc.mfa.startTotpEnrollment.mutate(proofBody(proof), { context }), { session: true }).then(
      (started) => ({ secretBase32: started.secret_base32, otpauthUri: started.otpauth_uri, expiresAtMillis: started.expires_at_millis }),
    );
    return toResult(run, PROOF_ERRORS);
  }

  /**
   * Confirms enrolment with the code the authenticator shows: MFA is on. Returns the 10 recovery
   * codes, once (only their hashes are kept): let the user copy or download them now.
   *
   * @example
   * const done = await app.confirmTotpEnrollment('123456');
   * if (done.status === 'ok') show(done.data.recoveryCodes);
   */
  async confirmTotpEnrollment(totp: string): Promise<Result<{ recoveryCodes: string[] }, TotpConfirmError>> {
    const run = this.mutate(['mfa.', 'users.'], (context) => this.trpc.mfa.confirmTotpEnrollment.mutate({ totp }, { context }), { session: true }).then(
      (done) => ({ recoveryCodes: done.recovery_codes }),
    );
    return toResult(run, CONFIRM_ERRORS);
  }

  /**
   * Turns MFA off. The signed-in user shows a proof (or signed in in the last 5 minutes); a
   * server or admin app resets any user's MFA with `userId` and no proof.
   *
   * @example
   * await app.disableTotp({ totp: '123456' });
   * await adminApp.disableTotp({ userId }); // the owner's reset for a lost authenticator
   */
  async disableTotp(options: MfaProof & { userId?: string } = {}): Promise<Result<void, MfaProofError>> {
    const input = { user_id: options.userId ?? 'me', ...proofBody(options) };
    const run = this.mutate(['mfa.', 'users.'], (context) => this.trpc.mfa.disableTotp.mutate(input, { context }), {
      session: this.sessionFor(options.userId),
    }).then(() => undefined);
    return toResult(run, PROOF_ERRORS);
  }

  /**
   * New recovery codes (the old ones stop working), shown once. Needs a proof, or a sign-in in
   * the last 5 minutes.
   *
   * @example
   * const fresh = await app.regenerateRecoveryCodes({ totp: '123456' });
   */
  async regenerateRecoveryCodes(
    proof: MfaProof = {},
  ): Promise<Result<{ recoveryCodes: string[] }, MfaProofError | ExpectedErrors<'TotpEnrollmentNotStarted'>>> {
    const run = this.mutate(['mfa.'], (context) => this.trpc.mfa.regenerateRecoveryCodes.mutate(proofBody(proof), { context }), { session: true }).then(
      (done) => ({ recoveryCodes: done.recovery_codes }),
    );
    return toResult(run, [...PROOF_ERRORS, KnownErrors.TotpEnrollmentNotStarted]);
  }
}
