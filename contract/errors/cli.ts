/** Polling and CLI login (spec section 8, "Polling and CLI"). */
import { defineFixedError, defineMessageError } from './known-error.js';

export const cliErrors = {
  InvalidPollingCode: defineFixedError('INVALID_POLLING_CODE', 400, 'The polling code is invalid or does not exist. Start a new CLI login.'),

  CliAuthError: defineMessageError('CLI_AUTH_ERROR', 400),

  CliAuthExpiredError: defineMessageError('CLI_AUTH_EXPIRED_ERROR', 400, 'CLI authentication request expired. Please try again.'),

  CliAuthUsedError: defineMessageError('CLI_AUTH_USED_ERROR', 400, 'This authentication token has already been used.'),
} as const;
