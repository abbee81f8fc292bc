/** Verification codes: e-mail verification, magic links, password reset, invitations (spec section 8, "Verification codes"). */
import { defineFixedError, defineMessageError } from './known-error.js';

export const verificationCodeErrors = {
  /** Parent of the verification-code errors below (group `VerificationCodeError`). */
  VerificationCodeError: defineMessageError('VERIFICATION_ERROR', 400, 'The verification code is not valid.'),

  VerificationCodeNotFound: defineFixedError(
    'CODE_NOT_FOUND',
    404,
    'The verification code does not exist for this project. Check that the whole code or link was used.',
  ),

  VerificationCodeExpired: defineFixedError('EXPIRED', 400, 'The verification code has expired. Request a new one.'),

  VerificationCodeAlreadyUsed: defineFixedError('ALREADY_USED', 409, 'The verification code has already been used. Request a new one if needed.'),

  VerificationCodeMaxAttemptsReached: defineFixedError(
    'MAX_ATTEMPTS_REACHED',
    400,
    'The verification code has reached the maximum number of attempts and is no longer valid. Request a new one.',
  ),
} as const;
