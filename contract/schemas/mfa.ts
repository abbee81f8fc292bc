/** Wire schemas of TOTP MFA: the second sign-in step (spec, "Auth") and Latch's enrolment and recovery-code routes. */
import { z } from 'zod';

/** A 6-digit code from the authenticator (anything else is INVALID_TOTP_CODE, not a schema error). */
const totpSchema = z.string().max(16);
/** A recovery code as shown (XXXXX-XXXXX); spaces, dashes and case are ignored. */
const recoveryCodeSchema = z.string().max(64);

/**
 * POST /auth/mfa/sign-in: the spec's {type: 'totp', totp, code}; Latch also takes
 * {type: 'recovery_code', recovery_code, code} with one of the user's recovery codes.
 */
export const mfaSignInSchema = z.strictObject({
  /** 'totp' when left out (the spec's only type). */
  type: z.enum(['totp', 'recovery_code']).default('totp'),
  totp: totpSchema.optional(),
  recovery_code: recoveryCodeSchema.optional(),
  /** The attempt code from MULTI_FACTOR_AUTHENTICATION_REQUIRED's details.attempt_code. */
  code: z.string().min(1).max(256),
});

/** The proof a client shows to change its second factor; without one, a sign-in in the last 5 minutes. */
export const mfaProofSchema = z.strictObject({ totp: totpSchema.optional(), recovery_code: recoveryCodeSchema.optional() });

export const totpConfirmSchema = z.strictObject({ totp: totpSchema });

export const mfaStatusSchema = z.object({
  requires_totp_mfa: z.boolean(),
  /** An enrolment was started and waits for its first code. */
  totp_enrollment_pending: z.boolean(),
  recovery_codes_total: z.number().int(),
  recovery_codes_remaining: z.number().int(),
  /** When a recovery code was last used to sign in (or as proof), so the user notices one they did not use. */
  last_recovery_code_used_at_millis: z.number().int().nullable(),
});

export const totpEnrollmentSchema = z.object({
  /** The secret as authenticator apps take it when typed (base32). */
  secret_base32: z.string(),
  /** otpauth://totp/… for a QR code. */
  otpauth_uri: z.string(),
  expires_at_millis: z.number().int(),
});

/** Shown once: only their hashes are kept. */
export const recoveryCodesSchema = z.object({ recovery_codes: z.array(z.string()) });
