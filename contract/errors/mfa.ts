/** Multi-factor authentication (spec section 8, "Multi-factor"). */
import { defineFixedError, defineKnownError } from './known-error.js';

export const mfaErrors = {
  /** Carries the attempt code to send back with the TOTP to POST /auth/mfa/sign-in. */
  MultiFactorAuthenticationRequired: defineKnownError('MULTI_FACTOR_AUTHENTICATION_REQUIRED', 400, (attemptCode: string) => ({
    message: 'Multi-factor authentication is required for this user. Send the TOTP together with details.attempt_code to POST /api/v1/auth/mfa/sign-in.',
    details: { attempt_code: attemptCode },
  })),

  InvalidTotpCode: defineFixedError('INVALID_TOTP_CODE', 400, 'The TOTP code is invalid. Please try again.'),

  /** Latch's own: confirming TOTP enrolment needs a started, unexpired enrolment (POST /users/me/mfa/totp/enroll). */
  TotpEnrollmentNotStarted: defineFixedError(
    'TOTP_ENROLLMENT_NOT_STARTED',
    400,
    'There is no TOTP enrollment to confirm, or it expired. Start the enrollment again.',
  ),
} as const;
