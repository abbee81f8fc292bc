/** Sessions and tokens: access and refresh tokens, the session list, fresh sign-in (spec section 8, "Sessions"). */
import { defineFixedError, defineKnownError, defineMessageError } from './known-error.js';

export const sessionErrors = {
  /** Parent of the access-token errors below (group `InvalidAccessToken`). */
  InvalidAccessToken: defineMessageError('INVALID_ACCESS_TOKEN', 401, 'The x-latch-access-token header is not a valid access token.'),

  UnparsableAccessToken: defineFixedError(
    'UNPARSABLE_ACCESS_TOKEN',
    401,
    'The x-latch-access-token header could not be parsed as an access token. Send the token exactly as returned by sign-in or refresh.',
  ),

  AccessTokenExpired: defineKnownError('ACCESS_TOKEN_EXPIRED', 401, (expiredAt?: Date) => ({
    message:
      'The access token in x-latch-access-token has expired. Refresh it (POST /api/v1/auth/sessions/current/refresh ' +
      'with the refresh token in x-latch-refresh-token) and try again; the SDK does this for you if you fetch the token on every call.' +
      (expiredAt ? ` (It expired at ${expiredAt.toISOString()}.)` : ''),
    details: { expired_at_millis: expiredAt?.getTime() ?? null },
  })),

  InvalidProjectForAccessToken: defineKnownError('INVALID_PROJECT_FOR_ACCESS_TOKEN', 401, (expectedProjectId: string, actualProjectId: string) => ({
    message:
      `The access token is not valid for this project: x-latch-project-id is ${JSON.stringify(expectedProjectId)}, ` +
      `but the token was issued for the project ${JSON.stringify(actualProjectId)}.`,
    details: { expected_project_id: expectedProjectId, actual_project_id: actualProjectId },
  })),

  /** Parent of the refresh-token errors below (group `RefreshTokenError`). */
  RefreshTokenError: defineMessageError('REFRESH_TOKEN_ERROR', 401, 'The refresh token could not be used. Sign in again.'),

  RefreshTokenNotFoundOrExpired: defineFixedError(
    'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    401,
    'The refresh token in x-latch-refresh-token was not found for this project, or its session has expired or been revoked. Sign in again.',
  ),

  ProviderRejected: defineFixedError(
    'PROVIDER_REJECTED',
    401,
    'The OAuth provider refused to refresh its token: it no longer regards this session as valid. The user must sign in again.',
  ),

  CannotDeleteCurrentSession: defineFixedError(
    'CANNOT_DELETE_CURRENT_SESSION',
    400,
    'The current session cannot be deleted through the session list. Sign out instead.',
  ),

  SessionNotFound: defineFixedError('SESSION_NOT_FOUND', 404, 'No active session with this id exists for this user.'),

  /** A change that needs a fresh proof of identity (e.g. two-factor settings) from a session signed in too long ago. */
  RecentSignInRequired: defineKnownError('RECENT_SIGN_IN_REQUIRED', 403, (maxAgeSeconds: number) => ({
    message: `This change needs a recent sign-in: the current session was signed in more than ${maxAgeSeconds} seconds ago. Sign in again, then retry with the new session's access token.`,
    details: { max_age_seconds: maxAgeSeconds },
  })),
} as const;
