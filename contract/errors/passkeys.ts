/** Passkeys; the message comes from the WebAuthn ceremony (spec section 8, "Passkeys"). */
import { defineKnownError, defineMessageError } from './known-error.js';

export const passkeyErrors = {
  PasskeyRegistrationFailed: defineMessageError('PASSKEY_REGISTRATION_FAILED', 400),

  PasskeyWebAuthnError: defineKnownError('PASSKEY_WEBAUTHN_ERROR', 400, (message: string, code: string) => ({
    message,
    details: { message, code },
  })),

  PasskeyAuthenticationFailed: defineMessageError('PASSKEY_AUTHENTICATION_FAILED', 400),

  /** A passkey id that is not one of the user's (management calls, /passkeys). */
  PasskeyNotFound: defineKnownError('PASSKEY_NOT_FOUND', 404, (passkeyId: string) => ({
    message: `Passkey ${passkeyId} not found.`,
    details: { passkey_id: passkeyId },
  })),
} as const;
