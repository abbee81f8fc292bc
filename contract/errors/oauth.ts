/** OAuth: providers, connected accounts, the authorization-code flow (spec section 8, "OAuth"). */
import { defineFixedError, defineKnownError } from './known-error.js';

export const oauthErrors = {
  OAuthConnectionNotConnectedToUser: defineFixedError(
    'OAUTH_CONNECTION_NOT_CONNECTED_TO_USER',
    400,
    'The OAuth connection is not connected to any user. Connect the account first.',
  ),

  OAuthConnectionAlreadyConnectedToAnotherUser: defineFixedError(
    'OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER',
    409,
    'This OAuth account is already connected to another user.',
  ),

  OAuthConnectionDoesNotHaveRequiredScope: defineFixedError(
    'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE',
    400,
    'The OAuth connection does not have the required scope. Reconnect the account, requesting the missing scopes.',
  ),

  OAuthExtraScopeNotAvailableWithSharedOAuthKeys: defineFixedError(
    'OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS',
    400,
    'Extra scopes are not available with shared OAuth keys. Configure your own OAuth client ID and secret for this provider in the Latch admin console to request extra scopes.',
  ),

  OAuthAccessTokenNotAvailableWithSharedOAuthKeys: defineFixedError(
    'OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS',
    400,
    'Provider access tokens are not available with shared OAuth keys. Configure your own OAuth client ID and secret for this provider in the Latch admin console to use access tokens.',
  ),

  InvalidOAuthClientIdOrSecret: defineKnownError('INVALID_OAUTH_CLIENT_ID_OR_SECRET', 400, (clientId?: string, message?: string) => ({
    message:
      message ??
      'The OAuth client ID or secret is invalid. The client ID must be the project ID (optionally followed by # and a branch ID), ' +
        'and the client secret must be a publishable client key of that project.',
    details: { client_id: clientId ?? null },
  })),

  /** A scope (the app's provider_scope on authorize) that is not RFC 6749 scope syntax; `reason` says what is wrong. */
  InvalidScope: defineKnownError('INVALID_SCOPE', 400, (scope: string, reason?: string) => ({
    message: reason ?? `The scope ${JSON.stringify(scope)} is not a valid OAuth scope for Latch.`,
    details: { scope },
  })),

  UserAlreadyConnectedToAnotherOAuthConnection: defineFixedError(
    'USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION',
    409,
    'The user is already connected to another account of this OAuth provider. Did you pick the wrong account?',
  ),

  OuterOAuthTimeout: defineFixedError('OUTER_OAUTH_TIMEOUT', 408, 'The OAuth flow has timed out. Please sign in again.'),

  OAuthProviderNotFoundOrNotEnabled: defineKnownError('OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED', 400, (providerId?: string) => ({
    message:
      (providerId
        ? `The OAuth provider ${JSON.stringify(providerId)} is not configured or not enabled for this project.`
        : 'The OAuth provider is not configured or not enabled for this project.') + ' Enable it in the project settings.',
    details: { provider_id: providerId ?? null },
  })),

  OAuthProviderAccountIdAlreadyUsedForSignIn: defineFixedError(
    'OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN',
    400,
    'Another OAuth account with the same provider account ID is already used for signing in. Disable sign-in on one of them.',
  ),

  InvalidSharedOAuthProviderId: defineKnownError('INVALID_SHARED_OAUTH_PROVIDER_ID', 400, (providerId: string) => ({
    message: `The shared OAuth provider ID ${JSON.stringify(providerId)} is not valid (shared keys are only offered for some providers).`,
    details: { provider_id: providerId },
  })),

  InvalidStandardOAuthProviderId: defineKnownError('INVALID_STANDARD_OAUTH_PROVIDER_ID', 400, (providerId: string) => ({
    message: `The standard OAuth provider ID ${JSON.stringify(providerId)} is not valid.`,
    details: { provider_id: providerId },
  })),

  InvalidAuthorizationCode: defineFixedError(
    'INVALID_AUTHORIZATION_CODE',
    400,
    'The authorization code is invalid, expired or already used. Start the OAuth flow again.',
  ),

  OAuthProviderAccessDenied: defineFixedError(
    'OAUTH_PROVIDER_ACCESS_DENIED',
    400,
    'The OAuth provider denied access (the user may have cancelled the consent screen).',
  ),

  /** Latch additions (not in the spec's catalogue): the operator's shared keys are missing; the provider failed. */
  SharedOAuthKeysNotConfigured: defineKnownError('SHARED_OAUTH_KEYS_NOT_CONFIGURED', 400, (providerId: string) => ({
    message:
      `The OAuth provider ${JSON.stringify(providerId)} uses shared keys, but this Latch deployment has none for it. ` +
      `The operator must set LATCH_OAUTH_${providerId.toUpperCase()}_CLIENT_ID and LATCH_OAUTH_${providerId.toUpperCase()}_CLIENT_SECRET, ` +
      'or the project must use its own client ID and secret (type standard).',
    details: { provider_id: providerId, env: [`LATCH_OAUTH_${providerId.toUpperCase()}_CLIENT_ID`, `LATCH_OAUTH_${providerId.toUpperCase()}_CLIENT_SECRET`] },
  })),

  OAuthProviderRequestFailed: defineKnownError('OAUTH_PROVIDER_REQUEST_FAILED', 502, (providerId: string) => ({
    message: `The OAuth provider ${JSON.stringify(providerId)} did not answer as expected (it may be unavailable or rate limiting). Try again later.`,
    details: { provider_id: providerId },
  })),

  ContactChannelAlreadyUsedForAuthBySomeoneElse: defineKnownError(
    'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE',
    409,
    (type: string, contactChannelValue?: string, wouldWorkIfEmailWasVerified: boolean = false) => ({
      message:
        `This ${type}${contactChannelValue ? ` (${JSON.stringify(contactChannelValue)})` : ''} is already used for authentication by another account` +
        (wouldWorkIfEmailWasVerified
          ? ', but it is not verified there. Sign in to the existing account with the method used to sign up and verify it; then this sign-in method will work.'
          : '.'),
      details: {
        type,
        contact_channel_value: contactChannelValue ?? null,
        would_work_if_email_was_verified: wouldWorkIfEmailWasVerified,
      },
    }),
  ),
} as const;
