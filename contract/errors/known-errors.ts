/**
 * The known-error catalogue: every error code Latch puts on the wire, with its HTTP status, its
 * human message and the type of its `details`. This file is the wire contract shared by the server
 * (services throw these, one middleware maps them to responses) and the SDK (which turns a response
 * body back into the same class). Codes never change once published; add new ones instead.
 *
 * Conventions: keys are PascalCase, codes UPPER_SNAKE and unique (checked at module load), `details`
 * keys snake_case. Messages are written for the developer calling the API: they name the header or
 * field that is wrong and say how to fix it. Codes and statuses follow the product spec (section 8),
 * which wins over the reference catalogue it was modelled on.
 *
 * @example
 * throw new KnownErrors.PasswordTooShort(8);
 * // → 400 {"code":"PASSWORD_TOO_SHORT","details":{"min_length":8},"error":"Password too short. …"}
 */
import { defineKnownError, KnownError } from './known-error.js';
import type { AccessType } from '../access-type.js';

export type { AccessType };

/** Who can own items and products in payments. */
export type CustomerType = 'user' | 'team' | 'custom';

/** One field-level problem found by request validation. */
export type SchemaIssue = {
  /** Dotted path of the offending field, e.g. `body.email` or `query.limit`. */
  path: string;
  message: string;
};

export type SchemaErrorDetails = { issues: readonly SchemaIssue[] };

/** The scope of a permission definition. */
export type PermissionScope = 'team' | 'project';

const accessTypeList = (types: readonly AccessType[]): string => types.map((t) => `'${t}'`).join(' or ');

/** Where a message refers the reader to the REST authentication rules. */
const AUTH_HEADERS_HINT =
  "Every request to /api/v1 must send x-latch-project-id and x-latch-access-type ('client', 'server' or 'admin') " +
  'plus the matching key: x-latch-publishable-client-key for client, x-latch-secret-server-key for server, ' +
  'x-latch-super-secret-admin-key or x-latch-admin-access-token for admin.';

export const KnownErrors = {
  // ─── Generic ───────────────────────────────────────────────────────────────────────────────────

  /** What the SDK produces for a code it does not know (a server newer than the client). */
  UnsupportedError: defineKnownError('UNSUPPORTED_ERROR', 500, (originalErrorCode: string) => ({
    message:
      'An error occurred that this client does not support (possibly because it was added in a newer version of ' +
      `Latch than this client). Upgrade the Latch SDK to get a typed error. The original error code was: ${originalErrorCode}`,
    details: { original_error_code: originalErrorCode },
  })),

  // ─── Request ───────────────────────────────────────────────────────────────────────────────────

  BodyParsingError: defineKnownError('BODY_PARSING_ERROR', 400, (message?: string) => ({
    message:
      message ??
      'The request body could not be parsed. Send valid JSON with the header Content-Type: application/json.',
  })),

  SchemaError: defineKnownError<'SCHEMA_ERROR', [message: string, details?: SchemaErrorDetails], SchemaErrorDetails | undefined>(
    'SCHEMA_ERROR',
    400,
    (message, details) => ({ message, details }),
  ),

  AllOverloadsFailed: defineKnownError('ALL_OVERLOADS_FAILED', 400, (overloadErrors: readonly unknown[]) => ({
    message:
      'This endpoint accepts several request shapes, but the request matched none of them.\n\n' +
      overloadErrors.map((e, i) => `Shape ${i + 1}: ${JSON.stringify(e, undefined, 2)}`).join('\n\n'),
    details: { overload_errors: overloadErrors },
  })),

  // ─── Platform (routing, limits, crashes) ───────────────────────────────────────────────────────

  /**
   * No route matches. `description` says what was asked for, e.g. `GET /api/v1/nope` or the
   * router's own message.
   */
  RouteNotFound: defineKnownError('NOT_FOUND', 404, (description?: string) => ({
    message:
      `No API route matches this request${description ? ` (${description})` : ''}. Check the path and the method; ` +
      'REST routes live under /api/v1 and are listed in the OpenAPI document at /api/v1/docs.',
    details: { description: description ?? null },
  })),

  MethodNotAllowed: defineKnownError(
    'METHOD_NOT_ALLOWED',
    405,
    (description?: string, allowedMethods?: readonly string[]) => ({
      message:
        `This HTTP method is not allowed on this route${description ? ` (${description})` : ''}.` +
        (allowedMethods?.length ? ` Allowed methods: ${allowedMethods.join(', ')}.` : ''),
      details: { description: description ?? null, allowed_methods: allowedMethods ?? null },
    }),
  ),

  PayloadTooLarge: defineKnownError('PAYLOAD_TOO_LARGE', 413, (maxBytes?: number) => ({
    message:
      'The request body is too large.' +
      (maxBytes !== undefined ? ` The maximum size is ${maxBytes} bytes.` : ' Send a smaller body.'),
    details: { max_bytes: maxBytes ?? null },
  })),

  /**
   * The HTTP parser's own refusals (server/http-errors.ts answers them from the `clientError` hook,
   * before any route runs), so even a request Node could not parse gets a catalogued answer.
   */
  RequestHeadersTooLarge: defineKnownError('REQUEST_HEADERS_TOO_LARGE', 431, (maxBytes?: number) => ({
    message:
      'The request line and headers are too large.' +
      (maxBytes !== undefined ? ` Together they may be at most ${maxBytes} bytes.` : '') +
      ' Send fewer or smaller headers, or a shorter URL.',
    details: { max_bytes: maxBytes ?? null },
  })),

  UriTooLong: defineKnownError('URI_TOO_LONG', 414, (maxLength?: number) => ({
    message:
      'The request URL is too long.' +
      (maxLength !== undefined ? ` It may be at most ${maxLength} characters.` : '') +
      ' Send large inputs in a request body instead of the query string.',
    details: { max_length: maxLength ?? null },
  })),

  RequestTimeout: defineKnownError('REQUEST_TIMEOUT', 408, () => ({
    message: 'The request was not received completely in time. Send the whole request promptly and try again.',
  })),

  MalformedHttpRequest: defineKnownError('MALFORMED_HTTP_REQUEST', 400, () => ({
    message: 'The request is not valid HTTP/1.1 (a malformed request line, header or chunked body). Check the client that sent it.',
  })),

  /** GET /metrics with LATCH_METRICS_TOKEN set, without that token (server/http/metrics-access.ts). */
  MetricsTokenRequired: defineKnownError('METRICS_TOKEN_REQUIRED', 401, () => ({
    message: 'GET /metrics needs the header Authorization: Bearer <token>, with the token the operator set in LATCH_METRICS_TOKEN.',
  })),

  /** GET /metrics without LATCH_METRICS_TOKEN, from a peer that is not loopback (or through a proxy). */
  MetricsLoopbackOnly: defineKnownError('METRICS_LOOPBACK_ONLY', 403, () => ({
    message:
      'GET /metrics answers only requests from this machine (loopback, not through a proxy). ' +
      'To scrape it from elsewhere, set LATCH_METRICS_TOKEN and send Authorization: Bearer <token>.',
  })),

  /** Sent with a Retry-After header carrying the same number of seconds. */
  RateLimited: defineKnownError('RATE_LIMITED', 429, (retryAfterSeconds: number) => ({
    message: `Too many requests. Wait ${retryAfterSeconds} seconds (see the Retry-After header) and try again.`,
    details: { retry_after_seconds: retryAfterSeconds },
  })),

  /**
   * Latch addition: a per-user or per-team storage cap (issue 13, quotas). `quota` names it:
   * `metadata_bytes` (the three metadata fields together, LATCH_METADATA_MAX_BYTES) or
   * `api_keys` (active keys of one user or team, LATCH_MAX_API_KEYS_PER_OWNER).
   */
  QuotaExceeded: defineKnownError('QUOTA_EXCEEDED', 409, (quota: 'metadata_bytes' | 'api_keys', limit: number) => ({
    message: quota === 'metadata_bytes'
      ? `client_metadata, client_read_only_metadata and server_metadata together may hold at most ${limit} bytes of JSON. Store less, or keep large data elsewhere and put a reference in the metadata.`
      : `At most ${limit} API keys may be active for one user or team. Revoke keys that are no longer used before creating another.`,
    details: { quota, limit },
  })),

  /** The SDK retries this one (spec, client behaviour on responses). */
  InfiniteLoopDetected: defineKnownError('INFINITE_LOOP_DETECTED', 508, () => ({
    message: 'An infinite loop was detected while processing the request. The request can safely be retried.',
  })),

  /**
   * The catch-all for unexpected failures. The message is fixed on purpose: nothing about the
   * failure (stack, SQL, internal ids) may reach the caller; the request id is what links the
   * response to the server log.
   */
  InternalServerError: defineKnownError('INTERNAL_SERVER_ERROR', 500, (requestId: string) => ({
    message: `An internal server error occurred. If it persists, report it with the request ID ${requestId}.`,
    details: { request_id: requestId },
  })),

  // ─── Project authentication (x-latch-* headers) ────────────────────────────────────────────────

  ProjectKeyWithoutAccessType: defineKnownError('PROJECT_KEY_WITHOUT_ACCESS_TYPE', 400, () => ({
    message:
      'A project key or an admin access token was provided, but the x-latch-access-type header is missing. ' +
      "Set it to 'client', 'server' or 'admin' to match the key you send.",
  })),

  InvalidAccessType: defineKnownError('INVALID_ACCESS_TYPE', 400, (accessType: string) => ({
    message: `The x-latch-access-type header must be 'client', 'server' or 'admin', but was '${accessType}'.`,
    details: { access_type: accessType },
  })),

  AccessTypeWithoutProjectId: defineKnownError('ACCESS_TYPE_WITHOUT_PROJECT_ID', 400, (accessType: AccessType) => ({
    message:
      `The x-latch-access-type header was '${accessType}', but the x-latch-project-id header was not provided. ` +
      'Send the ID of the project the request is for.',
    details: { access_type: accessType },
  })),

  AccessTypeRequired: defineKnownError('ACCESS_TYPE_REQUIRED', 400, () => ({
    message: `You must specify an access level for this Latch project. ${AUTH_HEADERS_HINT}`,
  })),

  InsufficientAccessType: defineKnownError(
    'INSUFFICIENT_ACCESS_TYPE',
    401,
    (actualAccessType: AccessType, allowedAccessTypes: readonly AccessType[]) => ({
      message:
        `This endpoint requires the x-latch-access-type header to be ${accessTypeList(allowedAccessTypes)}, ` +
        `but it was '${actualAccessType}'. Call it with the matching key (for example from a server with the secret server key).`,
      details: { actual_access_type: actualAccessType, allowed_access_types: allowedAccessTypes },
    }),
  ),

  InvalidPublishableClientKey: defineKnownError('INVALID_PUBLISHABLE_CLIENT_KEY', 401, (projectId: string) => ({
    message:
      `The x-latch-publishable-client-key header is not a valid publishable client key for the project ${JSON.stringify(projectId)}. ` +
      'Check that the project exists, that the key belongs to it and that the key has not been revoked.',
    details: { project_id: projectId },
  })),

  InvalidSecretServerKey: defineKnownError('INVALID_SECRET_SERVER_KEY', 401, (projectId: string) => ({
    message:
      `The x-latch-secret-server-key header is not a valid secret server key for the project ${JSON.stringify(projectId)}. ` +
      'Check that the project exists, that the key belongs to it and that the key has not been revoked.',
    details: { project_id: projectId },
  })),

  InvalidSuperSecretAdminKey: defineKnownError('INVALID_SUPER_SECRET_ADMIN_KEY', 401, (projectId: string) => ({
    message:
      `The x-latch-super-secret-admin-key header is not a valid super secret admin key for the project ${JSON.stringify(projectId)}. ` +
      'Check that the project exists, that the key belongs to it and that the key has not been revoked.',
    details: { project_id: projectId },
  })),

  /** Parent of the admin-access-token errors below (group `InvalidAdminAccessToken`). */
  InvalidAdminAccessToken: defineKnownError('INVALID_ADMIN_ACCESS_TOKEN', 401, (message?: string) => ({
    message: message ?? 'The x-latch-admin-access-token header is not a valid admin access token.',
  })),

  UnparsableAdminAccessToken: defineKnownError('UNPARSABLE_ADMIN_ACCESS_TOKEN', 401, () => ({
    message:
      'The x-latch-admin-access-token header could not be parsed. Send the access token of a signed-in user of the internal project, unmodified.',
  })),

  AdminAccessTokenExpired: defineKnownError('ADMIN_ACCESS_TOKEN_EXPIRED', 401, (expiredAt?: Date) => ({
    message:
      'The admin access token in x-latch-admin-access-token has expired. Refresh it and try again.' +
      (expiredAt ? ` (It expired at ${expiredAt.toISOString()}.)` : ''),
    details: { expired_at_millis: expiredAt?.getTime() ?? null },
  })),

  InvalidProjectForAdminAccessToken: defineKnownError('INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN', 401, () => ({
    message:
      'Admin access tokens must be issued by the internal project. The token in x-latch-admin-access-token belongs to another project.',
  })),

  AdminAccessTokenIsNotAdmin: defineKnownError('ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN', 401, () => ({
    message:
      'The user of the admin access token in x-latch-admin-access-token is not a member of the team that owns this project, ' +
      'so it cannot administer it. Use a token of one of the owners, or the super secret admin key.',
  })),

  /** Parent of the *_AUTHENTICATION_REQUIRED family (group `ProjectAuthenticationRequired`). */
  ProjectAuthenticationRequired: defineKnownError('PROJECT_AUTHENTICATION_REQUIRED', 401, (message?: string) => ({
    message: message ?? `Project authentication is required for this endpoint. ${AUTH_HEADERS_HINT}`,
  })),

  ClientAuthenticationRequired: defineKnownError('CLIENT_AUTHENTICATION_REQUIRED', 401, () => ({
    message: 'The publishable client key must be provided in the x-latch-publishable-client-key header.',
  })),

  PublishableClientKeyRequiredForProject: defineKnownError(
    'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT',
    401,
    (projectId?: string) => ({
      message:
        'Client requests to this project need its publishable client key in the x-latch-publishable-client-key header ' +
        '(create one with POST /api/v1/internal/api-keys or in the admin console).',
      details: { project_id: projectId ?? null },
    }),
  ),

  ServerAuthenticationRequired: defineKnownError('SERVER_AUTHENTICATION_REQUIRED', 401, () => ({
    message: 'The secret server key must be provided in the x-latch-secret-server-key header.',
  })),

  ClientOrServerAuthenticationRequired: defineKnownError('CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED', 401, () => ({
    message:
      'Either the publishable client key (x-latch-publishable-client-key) or the secret server key (x-latch-secret-server-key) must be provided.',
  })),

  ClientOrAdminAuthenticationRequired: defineKnownError('CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED', 401, () => ({
    message:
      'Either the publishable client key (x-latch-publishable-client-key) or the super secret admin key (x-latch-super-secret-admin-key) must be provided.',
  })),

  ClientOrServerOrAdminAuthenticationRequired: defineKnownError(
    'CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED',
    401,
    () => ({
      message:
        'One of the publishable client key (x-latch-publishable-client-key), the secret server key (x-latch-secret-server-key) ' +
        'or the super secret admin key (x-latch-super-secret-admin-key) must be provided.',
    }),
  ),

  /** Latch addition completing the family: the reference catalogue has no server-or-admin member. */
  ServerOrAdminAuthenticationRequired: defineKnownError('SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED', 401, () => ({
    message:
      'Either the secret server key (x-latch-secret-server-key) or admin credentials (x-latch-super-secret-admin-key or ' +
      'x-latch-admin-access-token) must be provided. This endpoint cannot be called with a publishable client key.',
  })),

  AdminAuthenticationRequired: defineKnownError('ADMIN_AUTHENTICATION_REQUIRED', 401, () => ({
    message:
      'Admin access is required: send the super secret admin key in x-latch-super-secret-admin-key, or an admin access token in x-latch-admin-access-token.',
  })),

  ExpectedInternalProject: defineKnownError('EXPECTED_INTERNAL_PROJECT', 401, () => ({
    message: "This endpoint is only available on the internal project. Set x-latch-project-id to 'internal'.",
  })),

  UserAuthenticationRequired: defineKnownError('USER_AUTHENTICATION_REQUIRED', 401, () => ({
    message:
      'This endpoint requires a signed-in user. Send the user\'s access token in the x-latch-access-token header.',
  })),

  // ─── Sessions and tokens ───────────────────────────────────────────────────────────────────────

  /** Parent of the access-token errors below (group `InvalidAccessToken`). */
  InvalidAccessToken: defineKnownError('INVALID_ACCESS_TOKEN', 401, (message?: string) => ({
    message: message ?? 'The x-latch-access-token header is not a valid access token.',
  })),

  UnparsableAccessToken: defineKnownError('UNPARSABLE_ACCESS_TOKEN', 401, () => ({
    message:
      'The x-latch-access-token header could not be parsed as an access token. Send the token exactly as returned by sign-in or refresh.',
  })),

  AccessTokenExpired: defineKnownError('ACCESS_TOKEN_EXPIRED', 401, (expiredAt?: Date) => ({
    message:
      'The access token in x-latch-access-token has expired. Refresh it (POST /api/v1/auth/sessions/current/refresh ' +
      'with the refresh token in x-latch-refresh-token) and try again; the SDK does this for you if you fetch the token on every call.' +
      (expiredAt ? ` (It expired at ${expiredAt.toISOString()}.)` : ''),
    details: { expired_at_millis: expiredAt?.getTime() ?? null },
  })),

  InvalidProjectForAccessToken: defineKnownError(
    'INVALID_PROJECT_FOR_ACCESS_TOKEN',
    401,
    (expectedProjectId: string, actualProjectId: string) => ({
      message:
        `The access token is not valid for this project: x-latch-project-id is ${JSON.stringify(expectedProjectId)}, ` +
        `but the token was issued for the project ${JSON.stringify(actualProjectId)}.`,
      details: { expected_project_id: expectedProjectId, actual_project_id: actualProjectId },
    }),
  ),

  /** Parent of the refresh-token errors below (group `RefreshTokenError`). */
  RefreshTokenError: defineKnownError('REFRESH_TOKEN_ERROR', 401, (message?: string) => ({
    message: message ?? 'The refresh token could not be used. Sign in again.',
  })),

  RefreshTokenNotFoundOrExpired: defineKnownError('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401, () => ({
    message:
      'The refresh token in x-latch-refresh-token was not found for this project, or its session has expired or been revoked. Sign in again.',
  })),

  ProviderRejected: defineKnownError('PROVIDER_REJECTED', 401, () => ({
    message:
      'The OAuth provider refused to refresh its token: it no longer regards this session as valid. The user must sign in again.',
  })),

  CannotDeleteCurrentSession: defineKnownError('CANNOT_DELETE_CURRENT_SESSION', 400, () => ({
    message: 'The current session cannot be deleted through the session list. Sign out instead.',
  })),

  SessionNotFound: defineKnownError('SESSION_NOT_FOUND', 404, () => ({
    message: 'No active session with this id exists for this user.',
  })),

  // ─── Users ─────────────────────────────────────────────────────────────────────────────────────

  UserWithEmailAlreadyExists: defineKnownError(
    'USER_EMAIL_ALREADY_EXISTS',
    409,
    (email: string, wouldWorkIfEmailWasVerified: boolean = false) => ({
      message:
        `A user with the e-mail ${JSON.stringify(email)} already exists` +
        (wouldWorkIfEmailWasVerified
          ? ', but the e-mail is not verified. Sign in to the existing account with the method used to sign up, verify the e-mail, and then this sign-in method will work.'
          : '.'),
      details: { email, would_work_if_email_was_verified: wouldWorkIfEmailWasVerified },
    }),
  ),

  EmailNotVerified: defineKnownError('EMAIL_NOT_VERIFIED', 400, () => ({
    message: 'The e-mail is not verified. Verify it first (a verification e-mail can be sent from the user\'s contact channels).',
  })),

  UserIdDoesNotExist: defineKnownError('USER_ID_DOES_NOT_EXIST', 400, (userId: string) => ({
    message: `The user with the ID ${userId} does not exist in this project.`,
    details: { user_id: userId },
  })),

  UserNotFound: defineKnownError('USER_NOT_FOUND', 404, () => ({ message: 'User not found.' })),

  EmailPasswordMismatch: defineKnownError('EMAIL_PASSWORD_MISMATCH', 400, () => ({
    message: 'Wrong e-mail or password.',
  })),

  /** Parent of the password-strength errors below (group `PasswordRequirementsNotMet`). */
  PasswordRequirementsNotMet: defineKnownError('PASSWORD_REQUIREMENTS_NOT_MET', 400, (message?: string) => ({
    message: message ?? 'The password does not meet the requirements.',
  })),

  PasswordTooShort: defineKnownError('PASSWORD_TOO_SHORT', 400, (minLength: number) => ({
    message: `Password too short. Minimum length is ${minLength}.`,
    details: { min_length: minLength },
  })),

  PasswordTooLong: defineKnownError('PASSWORD_TOO_LONG', 400, (maxLength: number) => ({
    message: `Password too long. Maximum length is ${maxLength}.`,
    details: { max_length: maxLength },
  })),

  UserDoesNotHavePassword: defineKnownError('USER_DOES_NOT_HAVE_PASSWORD', 400, () => ({
    message:
      'This user does not have a password. Set one first (POST /api/v1/auth/password/set) or sign in with another method.',
  })),

  UserAlreadyHasPassword: defineKnownError('USER_ALREADY_HAS_PASSWORD', 400, () => ({
    message: 'This user already has a password. Change it with POST /api/v1/auth/password/update (old_password, new_password).',
  })),

  PasswordConfirmationMismatch: defineKnownError('PASSWORD_CONFIRMATION_MISMATCH', 400, () => ({
    message: 'Passwords do not match.',
  })),

  EmailAlreadyVerified: defineKnownError('EMAIL_ALREADY_VERIFIED', 409, () => ({
    message: 'The e-mail is already verified.',
  })),

  EmailNotAssociatedWithUser: defineKnownError('EMAIL_NOT_ASSOCIATED_WITH_USER', 400, () => ({
    message: 'The e-mail is not associated with a user who can sign in with it.',
  })),

  EmailIsNotPrimaryEmail: defineKnownError('EMAIL_IS_NOT_PRIMARY_EMAIL', 400, (email: string, primaryEmail: string) => ({
    message: `The given e-mail (${email}) must equal the user's primary e-mail (${primaryEmail}).`,
    details: { email, primary_email: primaryEmail },
  })),

  ContactChannelNotFound: defineKnownError('CONTACT_CHANNEL_NOT_FOUND', 404, (contactChannelId: string) => ({
    message: `The contact channel ${contactChannelId} does not exist, or does not belong to this user.`,
    details: { contact_channel_id: contactChannelId },
  })),

  /** The same user already has a contact channel with this value (case-insensitive). */
  ContactChannelAlreadyExists: defineKnownError('CONTACT_CHANNEL_ALREADY_EXISTS', 409, (type: string, value: string) => ({
    message: `This user already has the ${type} contact channel ${JSON.stringify(value)}. Update that one instead.`,
    details: { type, contact_channel_value: value },
  })),

  SignUpNotEnabled: defineKnownError('SIGN_UP_NOT_ENABLED', 400, () => ({
    message: 'Creating new accounts is not enabled for this project. Ask the project owner to enable sign-up.',
  })),

  PasswordAuthenticationNotEnabled: defineKnownError('PASSWORD_AUTHENTICATION_NOT_ENABLED', 400, () => ({
    message: 'Password authentication is not enabled for this project. Enable it in the project settings.',
  })),

  MagicLinkAuthenticationNotEnabled: defineKnownError('MAGIC_LINK_AUTHENTICATION_NOT_ENABLED', 400, () => ({
    message: 'Magic link and one-time code sign-in is not enabled for this project. Enable it in the project settings (magic_link_enabled).',
  })),

  PasskeyAuthenticationNotEnabled: defineKnownError('PASSKEY_AUTHENTICATION_NOT_ENABLED', 400, () => ({
    message: 'Passkey authentication is not enabled for this project. Enable it in the project settings.',
  })),

  AnonymousAccountsNotEnabled: defineKnownError('ANONYMOUS_ACCOUNTS_NOT_ENABLED', 400, () => ({
    message: 'Anonymous accounts are not enabled for this project. Enable them in the project settings.',
  })),

  AnonymousAuthenticationNotAllowed: defineKnownError('ANONYMOUS_AUTHENTICATION_NOT_ALLOWED', 401, () => ({
    message:
      "The x-latch-access-token header holds the token of an anonymous user, but this request does not accept anonymous users. " +
      "Set the x-latch-allow-anonymous-user header to 'true' to allow them.",
  })),

  RedirectUrlNotWhitelisted: defineKnownError('REDIRECT_URL_NOT_WHITELISTED', 400, (url?: string) => ({
    message:
      (url ? `The redirect URL ${JSON.stringify(url)} is not trusted.` : 'The redirect URL is not trusted.') +
      " Add its domain to the project's trusted domains (or allow localhost for development).",
    details: { url: url ?? null },
  })),

  CannotGetOwnUserWithoutUser: defineKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER', 400, () => ({
    message:
      "You specified 'me' as a user ID, but the request carries no signed-in user. Send an access token in x-latch-access-token, or use an explicit user ID.",
  })),

  // ─── Projects ──────────────────────────────────────────────────────────────────────────────────

  ProjectNotFound: defineKnownError('PROJECT_NOT_FOUND', 404, (projectId: string) => ({
    message: `Project ${projectId} not found, or it is not accessible to the current user.`,
    details: { project_id: projectId },
  })),

  CurrentProjectNotFound: defineKnownError('CURRENT_PROJECT_NOT_FOUND', 400, (projectId: string) => ({
    message: `The current project with the ID ${projectId} was not found. Check the value of the x-latch-project-id header.`,
    details: { project_id: projectId },
  })),

  BranchDoesNotExist: defineKnownError('BRANCH_DOES_NOT_EXIST', 400, (branchId: string) => ({
    message: `The branch with the ID ${branchId} does not exist. Check the value of the x-latch-branch-id header (the default branch is 'main').`,
    details: { branch_id: branchId },
  })),

  // ─── Verification codes ────────────────────────────────────────────────────────────────────────

  /** Parent of the verification-code errors below (group `VerificationCodeError`). */
  VerificationCodeError: defineKnownError('VERIFICATION_ERROR', 400, (message?: string) => ({
    message: message ?? 'The verification code is not valid.',
  })),

  VerificationCodeNotFound: defineKnownError('CODE_NOT_FOUND', 404, () => ({
    message: 'The verification code does not exist for this project. Check that the whole code or link was used.',
  })),

  VerificationCodeExpired: defineKnownError('EXPIRED', 400, () => ({
    message: 'The verification code has expired. Request a new one.',
  })),

  VerificationCodeAlreadyUsed: defineKnownError('ALREADY_USED', 409, () => ({
    message: 'The verification code has already been used. Request a new one if needed.',
  })),

  VerificationCodeMaxAttemptsReached: defineKnownError('MAX_ATTEMPTS_REACHED', 400, () => ({
    message: 'The verification code has reached the maximum number of attempts and is no longer valid. Request a new one.',
  })),

  // ─── Passkeys (the message comes from the WebAuthn ceremony) ───────────────────────────────────

  PasskeyRegistrationFailed: defineKnownError('PASSKEY_REGISTRATION_FAILED', 400, (message: string) => ({ message })),

  PasskeyWebAuthnError: defineKnownError('PASSKEY_WEBAUTHN_ERROR', 400, (message: string, code: string) => ({
    message,
    details: { message, code },
  })),

  PasskeyAuthenticationFailed: defineKnownError('PASSKEY_AUTHENTICATION_FAILED', 400, (message: string) => ({ message })),

  // ─── Permissions and teams ─────────────────────────────────────────────────────────────────────

  PermissionNotFound: defineKnownError('PERMISSION_NOT_FOUND', 404, (permissionId: string) => ({
    message: `Permission ${JSON.stringify(permissionId)} not found. Make sure it is defined in the project's permission definitions.`,
    details: { permission_id: permissionId },
  })),

  WrongPermissionScope: defineKnownError(
    'WRONG_PERMISSION_SCOPE',
    404,
    (permissionId: string, expectedScope: PermissionScope, actualScope: PermissionScope) => ({
      message:
        `Permission ${JSON.stringify(permissionId)} not found in the ${expectedScope} scope; it is a ${actualScope} permission. ` +
        `Use the ${actualScope}-permission endpoints for it.`,
      details: { permission_id: permissionId, expected_scope: expectedScope, actual_scope: actualScope },
    }),
  ),

  ContainedPermissionNotFound: defineKnownError('CONTAINED_PERMISSION_NOT_FOUND', 400, (permissionId: string) => ({
    message: `The contained permission ${JSON.stringify(permissionId)} does not exist. Define it before referencing it.`,
    details: { permission_id: permissionId },
  })),

  PermissionIdAlreadyExists: defineKnownError('PERMISSION_ID_ALREADY_EXISTS', 400, (permissionId: string) => ({
    message: `A permission with the ID ${JSON.stringify(permissionId)} already exists. Choose a different ID.`,
    details: { permission_id: permissionId },
  })),

  TeamNotFound: defineKnownError('TEAM_NOT_FOUND', 404, (teamId: string) => ({
    message: `Team ${teamId} not found.`,
    details: { team_id: teamId },
  })),

  TeamAlreadyExists: defineKnownError('TEAM_ALREADY_EXISTS', 409, (teamId: string) => ({
    message: `Team ${teamId} already exists.`,
    details: { team_id: teamId },
  })),

  TeamMembershipNotFound: defineKnownError('TEAM_MEMBERSHIP_NOT_FOUND', 404, (teamId: string, userId: string) => ({
    message: `User ${userId} is not a member of team ${teamId}.`,
    details: { team_id: teamId, user_id: userId },
  })),

  TeamMembershipAlreadyExists: defineKnownError('TEAM_MEMBERSHIP_ALREADY_EXISTS', 409, (teamId: string, userId: string) => ({
    message: `User ${userId} is already a member of team ${teamId}.`,
    details: { team_id: teamId, user_id: userId },
  })),

  ProjectPermissionRequired: defineKnownError('PROJECT_PERMISSION_REQUIRED', 401, (userId: string, permissionId: string) => ({
    message: `User ${userId} does not have the project permission ${JSON.stringify(permissionId)}.`,
    details: { user_id: userId, permission_id: permissionId },
  })),

  TeamPermissionRequired: defineKnownError(
    'TEAM_PERMISSION_REQUIRED',
    401,
    (teamId: string, userId: string, permissionId: string) => ({
      message: `User ${userId} does not have the permission ${JSON.stringify(permissionId)} in team ${teamId}.`,
      details: { team_id: teamId, user_id: userId, permission_id: permissionId },
    }),
  ),

  // ─── OAuth ─────────────────────────────────────────────────────────────────────────────────────

  OAuthConnectionNotConnectedToUser: defineKnownError('OAUTH_CONNECTION_NOT_CONNECTED_TO_USER', 400, () => ({
    message: 'The OAuth connection is not connected to any user. Connect the account first.',
  })),

  OAuthConnectionAlreadyConnectedToAnotherUser: defineKnownError(
    'OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER',
    409,
    () => ({ message: 'This OAuth account is already connected to another user.' }),
  ),

  OAuthConnectionDoesNotHaveRequiredScope: defineKnownError('OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE', 400, () => ({
    message: 'The OAuth connection does not have the required scope. Reconnect the account, requesting the missing scopes.',
  })),

  OAuthExtraScopeNotAvailableWithSharedOAuthKeys: defineKnownError(
    'OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS',
    400,
    () => ({
      message:
        'Extra scopes are not available with shared OAuth keys. Configure your own OAuth client ID and secret for this provider in the Latch admin console to request extra scopes.',
    }),
  ),

  OAuthAccessTokenNotAvailableWithSharedOAuthKeys: defineKnownError(
    'OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS',
    400,
    () => ({
      message:
        'Provider access tokens are not available with shared OAuth keys. Configure your own OAuth client ID and secret for this provider in the Latch admin console to use access tokens.',
    }),
  ),

  InvalidOAuthClientIdOrSecret: defineKnownError('INVALID_OAUTH_CLIENT_ID_OR_SECRET', 400, (clientId?: string) => ({
    message:
      'The OAuth client ID or secret is invalid. The client ID must be the project ID (optionally followed by # and a branch ID), ' +
      'and the client secret must be a publishable client key of that project.',
    details: { client_id: clientId ?? null },
  })),

  InvalidScope: defineKnownError('INVALID_SCOPE', 400, (scope: string) => ({
    message: `The scope ${JSON.stringify(scope)} is not a valid OAuth scope for Latch.`,
    details: { scope },
  })),

  UserAlreadyConnectedToAnotherOAuthConnection: defineKnownError(
    'USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION',
    409,
    () => ({
      message: 'The user is already connected to another account of this OAuth provider. Did you pick the wrong account?',
    }),
  ),

  OuterOAuthTimeout: defineKnownError('OUTER_OAUTH_TIMEOUT', 408, () => ({
    message: 'The OAuth flow has timed out. Please sign in again.',
  })),

  OAuthProviderNotFoundOrNotEnabled: defineKnownError('OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED', 400, (providerId?: string) => ({
    message:
      (providerId
        ? `The OAuth provider ${JSON.stringify(providerId)} is not configured or not enabled for this project.`
        : 'The OAuth provider is not configured or not enabled for this project.') + ' Enable it in the project settings.',
    details: { provider_id: providerId ?? null },
  })),

  OAuthProviderAccountIdAlreadyUsedForSignIn: defineKnownError(
    'OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN',
    400,
    () => ({
      message:
        'Another OAuth account with the same provider account ID is already used for signing in. Disable sign-in on one of them.',
    }),
  ),

  InvalidSharedOAuthProviderId: defineKnownError('INVALID_SHARED_OAUTH_PROVIDER_ID', 400, (providerId: string) => ({
    message: `The shared OAuth provider ID ${JSON.stringify(providerId)} is not valid (shared keys are only offered for some providers).`,
    details: { provider_id: providerId },
  })),

  InvalidStandardOAuthProviderId: defineKnownError('INVALID_STANDARD_OAUTH_PROVIDER_ID', 400, (providerId: string) => ({
    message: `The standard OAuth provider ID ${JSON.stringify(providerId)} is not valid.`,
    details: { provider_id: providerId },
  })),

  InvalidAuthorizationCode: defineKnownError('INVALID_AUTHORIZATION_CODE', 400, () => ({
    message: 'The authorization code is invalid, expired or already used. Start the OAuth flow again.',
  })),

  OAuthProviderAccessDenied: defineKnownError('OAUTH_PROVIDER_ACCESS_DENIED', 400, () => ({
    message: 'The OAuth provider denied access (the user may have cancelled the consent screen).',
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

  // ─── Multi-factor ──────────────────────────────────────────────────────────────────────────────

  /** Carries the attempt code to send back with the TOTP to POST /auth/mfa/sign-in. */
  MultiFactorAuthenticationRequired: defineKnownError('MULTI_FACTOR_AUTHENTICATION_REQUIRED', 400, (attemptCode: string) => ({
    message:
      'Multi-factor authentication is required for this user. Send the TOTP together with details.attempt_code to POST /api/v1/auth/mfa/sign-in.',
    details: { attempt_code: attemptCode },
  })),

  InvalidTotpCode: defineKnownError('INVALID_TOTP_CODE', 400, () => ({
    message: 'The TOTP code is invalid. Please try again.',
  })),

  // ─── Polling and CLI login ─────────────────────────────────────────────────────────────────────

  InvalidPollingCode: defineKnownError('INVALID_POLLING_CODE', 400, () => ({
    message: 'The polling code is invalid or does not exist. Start a new CLI login.',
  })),

  CliAuthError: defineKnownError('CLI_AUTH_ERROR', 400, (message: string) => ({ message })),

  CliAuthExpiredError: defineKnownError(
    'CLI_AUTH_EXPIRED_ERROR',
    400,
    (message: string = 'CLI authentication request expired. Please try again.') => ({ message }),
  ),

  CliAuthUsedError: defineKnownError(
    'CLI_AUTH_USED_ERROR',
    400,
    (message: string = 'This authentication token has already been used.') => ({ message }),
  ),

  // ─── API keys ──────────────────────────────────────────────────────────────────────────────────

  /** Parent of the API-key errors below (group `ApiKeyNotValid`). */
  ApiKeyNotValid: defineKnownError('API_KEY_NOT_VALID', 401, (message?: string) => ({
    message: message ?? 'The API key is not valid.',
  })),

  /** `details.reason` is the spec's reason code for user and team keys. */
  ApiKeyExpired: defineKnownError('API_KEY_EXPIRED', 401, () => ({
    message: 'The API key has expired. Create a new one.',
    details: { reason: 'expired' as const },
  })),

  /** `details.reason` is the spec's reason code for user and team keys (checked before expiry). */
  ApiKeyRevoked: defineKnownError('API_KEY_REVOKED', 401, () => ({
    message: 'The API key has been revoked. Create a new one.',
    details: { reason: 'manually-revoked' as const },
  })),

  WrongApiKeyType: defineKnownError('WRONG_API_KEY_TYPE', 400, (expectedType: string, actualType: string) => ({
    message: `This endpoint is for ${expectedType} API keys, but a ${actualType} API key was provided.`,
    details: { expected_type: expectedType, actual_type: actualType },
  })),

  ApiKeyNotFound: defineKnownError('API_KEY_NOT_FOUND', 404, () => ({ message: 'API key not found.' })),

  PublicApiKeyCannotBeRevoked: defineKnownError('PUBLIC_API_KEY_CANNOT_BE_REVOKED', 400, () => ({
    message: 'Public API keys cannot be revoked: they are meant to be seen. To stop one from working, set its expires_at_millis.',
  })),

  /** Latch addition: user or team API keys used while the project's allow_*_api_keys flag is off. */
  ApiKeysNotEnabled: defineKnownError('API_KEYS_NOT_ENABLED', 400, (type: 'user' | 'team') => ({
    message: `${type === 'user' ? 'User' : 'Team'} API keys are not enabled for this project. Turn on allow_${type}_api_keys in the project config.`,
    details: { type },
  })),

  // ─── Email ─────────────────────────────────────────────────────────────────────────────────────

  EmailRenderingError: defineKnownError('EMAIL_RENDERING_ERROR', 400, (error: string) => ({
    message: `Failed to render the e-mail with its theme: ${error}`,
    details: { error },
  })),

  RequiresCustomEmailServer: defineKnownError('REQUIRES_CUSTOM_EMAIL_SERVER', 400, () => ({
    message: 'This action requires a custom SMTP server. Configure one in the project\'s e-mail settings and try again.',
  })),

  /**
   * The project queued more emails in the last hour than the deployment allows
   * (LATCH_EMAIL_RATE_LIMIT_PER_HOUR). Nothing was sent and the action that would have sent it did
   * not happen; sent with a Retry-After header.
   */
  EmailRateLimited: defineKnownError('EMAIL_RATE_LIMITED', 429, (retryAfterSeconds: number, limitPerHour: number) => ({
    message:
      `This project has sent its limit of ${limitPerHour} e-mails in the last hour. Nothing was sent. ` +
      `Try again in ${retryAfterSeconds} seconds (see the Retry-After header), or ask the operator to raise LATCH_EMAIL_RATE_LIMIT_PER_HOUR.`,
    details: { retry_after_seconds: retryAfterSeconds, limit_per_hour: limitPerHour },
  })),

  /**
   * A project's own SMTP server (a test email, or the outbox) resolves to an address this
   * deployment does not connect to: loopback, private, link-local, CGNAT, metadata and other
   * non-public ranges are refused unless the operator sets LATCH_SMTP_ALLOW_PRIVATE=true. The
   * address itself is not told (it would map the operator's internal network).
   */
  EmailServerHostNotAllowed: defineKnownError('EMAIL_SERVER_HOST_NOT_ALLOWED', 400, (host: string) => ({
    message:
      `The email server host "${host}" resolves to a private, loopback, link-local or otherwise non-public address, which this deployment does not connect to. ` +
      'Use a public SMTP server, or (local development only) ask the operator to set LATCH_SMTP_ALLOW_PRIVATE=true.',
    details: { host },
  })),

  /** A project's own SMTP server may listen only on an SMTP port, unless LATCH_SMTP_ALLOW_PRIVATE=true. */
  EmailServerPortNotAllowed: defineKnownError('EMAIL_SERVER_PORT_NOT_ALLOWED', 400, (port: number, allowedPorts: readonly number[]) => ({
    message: `The email server port ${port} is not allowed. Use one of the SMTP ports ${allowedPorts.join(', ')}.`,
    details: { port, allowed_ports: [...allowedPorts] },
  })),

  SentEmailNotFound: defineKnownError('EMAIL_NOT_FOUND', 404, (emailId: string) => ({
    message: `The e-mail ${emailId} does not exist in this project.`,
    details: { email_id: emailId },
  })),

  EmailTemplateAlreadyExists: defineKnownError('EMAIL_TEMPLATE_ALREADY_EXISTS', 409, () => ({
    message: 'An e-mail template of this type already exists. Update it instead of creating a new one.',
  })),

  // ─── Payments ──────────────────────────────────────────────────────────────────────────────────

  ItemNotFound: defineKnownError('ITEM_NOT_FOUND', 404, (itemId: string) => ({
    message: `Item with the ID ${JSON.stringify(itemId)} not found. Check the project's payments configuration.`,
    details: { item_id: itemId },
  })),

  ItemCustomerTypeDoesNotMatch: defineKnownError(
    'ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH',
    400,
    (itemId: string, customerId: string, itemCustomerType: CustomerType | undefined, actualCustomerType: CustomerType) => ({
      message:
        `The ${actualCustomerType} ${JSON.stringify(customerId)} is not a valid customer for the item ${JSON.stringify(itemId)}. ` +
        (itemCustomerType
          ? `The item is only available to ${itemCustomerType} customers.`
          : 'The item has no customer type; set one in the payments configuration.'),
      details: {
        item_id: itemId,
        customer_id: customerId,
        item_customer_type: itemCustomerType ?? null,
        actual_customer_type: actualCustomerType,
      },
    }),
  ),

  CustomerDoesNotExist: defineKnownError('CUSTOMER_DOES_NOT_EXIST', 400, (customerId: string) => ({
    message: `Customer with the ID ${JSON.stringify(customerId)} does not exist.`,
    details: { customer_id: customerId },
  })),

  ProductDoesNotExist: defineKnownError(
    'PRODUCT_DOES_NOT_EXIST',
    400,
    (productId: string, context: 'server_only' | 'item_exists' | null = null) => ({
      message:
        `Product with the ID ${JSON.stringify(productId)} ` +
        (context === 'server_only'
          ? 'is marked server-only and cannot be used from a client; call this from your server with the secret server key.'
          : context === 'item_exists'
            ? 'does not exist, but an item with this ID does: did you mean the item?'
            : 'does not exist.'),
      details: { product_id: productId, context },
    }),
  ),

  ProductCustomerTypeDoesNotMatch: defineKnownError(
    'PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH',
    400,
    (
      productId: string | undefined,
      customerId: string,
      productCustomerType: CustomerType | undefined,
      actualCustomerType: CustomerType,
    ) => ({
      message:
        `The ${actualCustomerType} ${JSON.stringify(customerId)} is not a valid customer for ` +
        (productId ? `the product ${JSON.stringify(productId)}. ` : 'the inline product. ') +
        (productCustomerType
          ? `The product is only available to ${productCustomerType} customers.`
          : 'The product has no customer type; set one in the payments configuration.'),
      details: {
        product_id: productId ?? null,
        customer_id: customerId,
        product_customer_type: productCustomerType ?? null,
        actual_customer_type: actualCustomerType,
      },
    }),
  ),

  ProductAlreadyGranted: defineKnownError('PRODUCT_ALREADY_GRANTED', 400, (productId: string, customerId: string) => ({
    message: `Customer ${JSON.stringify(customerId)} already owns the product ${JSON.stringify(productId)}.`,
    details: { product_id: productId, customer_id: customerId },
  })),

  ItemQuantityInsufficientAmount: defineKnownError(
    'ITEM_QUANTITY_INSUFFICIENT_AMOUNT',
    400,
    (itemId: string, customerId: string, quantity: number) => ({
      message:
        `The item ${JSON.stringify(itemId)} has an insufficient quantity for the customer ${JSON.stringify(customerId)}: ` +
        `an attempt was made to change it by ${quantity}.`,
      details: { item_id: itemId, customer_id: customerId, quantity },
    }),
  ),

  /** The card-payment provider's "account information not found"; the code carries its name. */
  StripeAccountInfoNotFound: defineKnownError('STRIPE_ACCOUNT_INFO_NOT_FOUND', 404, () => ({
    message: 'Stripe account information not found. Complete Stripe onboarding for this project first.',
  })),

  // ─── Data vault ────────────────────────────────────────────────────────────────────────────────

  DataVaultStoreDoesNotExist: defineKnownError('DATA_VAULT_STORE_DOES_NOT_EXIST', 400, (storeId: string) => ({
    message: `The data vault store with the ID ${JSON.stringify(storeId)} does not exist. Create it in the project configuration first.`,
    details: { store_id: storeId },
  })),

  DataVaultStoreHashedKeyDoesNotExist: defineKnownError(
    'DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST',
    400,
    (storeId: string, hashedKey: string) => ({
      message: `The data vault store ${JSON.stringify(storeId)} does not contain a key with the hash ${JSON.stringify(hashedKey)}.`,
      details: { store_id: storeId, hashed_key: hashedKey },
    }),
  ),

  // ─── Workflows (x-latch-workflow-token) ────────────────────────────────────────────────────────

  WorkflowTokenDoesNotExist: defineKnownError('WORKFLOW_TOKEN_DOES_NOT_EXIST', 400, () => ({
    message: 'The workflow token in the x-latch-workflow-token header does not exist for this project.',
  })),

  WorkflowTokenExpired: defineKnownError('WORKFLOW_TOKEN_EXPIRED', 400, () => ({
    message: 'The workflow token in the x-latch-workflow-token header has expired. Use the token of the current workflow run.',
  })),

  /** A change that needs a fresh proof of identity (e.g. two-factor settings) from a session signed in too long ago. */
  RecentSignInRequired: defineKnownError('RECENT_SIGN_IN_REQUIRED', 403, (maxAgeSeconds: number) => ({
    message: `This change needs a recent sign-in: the current session was signed in more than ${maxAgeSeconds} seconds ago. Sign in again, then retry with the new session's access token.`,
    details: { max_age_seconds: maxAgeSeconds },
  })),
} as const;

/** Any class in the catalogue. */
export type AnyKnownErrorClass = (typeof KnownErrors)[keyof typeof KnownErrors];

/** Every code Latch can send. */
export type KnownErrorCode = AnyKnownErrorClass['code'];

/** An instance of the catalogue class with the given key, e.g. `KnownErrorOf<'PasswordTooShort'>`. */
export type KnownErrorOf<K extends keyof typeof KnownErrors> = InstanceType<(typeof KnownErrors)[K]>;

/** code -> class, for the SDK and the error middleware. Built once; throws at load on a duplicate code. */
export const knownErrorsByCode: ReadonlyMap<string, AnyKnownErrorClass> = (() => {
  const byCode = new Map<string, AnyKnownErrorClass>();
  for (const [key, cls] of Object.entries(KnownErrors)) {
    const existing = byCode.get(cls.code);
    if (existing !== undefined) {
      throw new Error(`Duplicate known error code ${cls.code} (KnownErrors.${key})`);
    }
    byCode.set(cls.code, cls);
  }
  return byCode;
})();

/**
 * Families of codes a caller may want to handle together (the spec names them: "RefreshTokenError:
 * the refresh yields no token", "ApiKeyNotValid: the check call returns null", …). Each family lists
 * its own parent code first.
 */
export const knownErrorGroups = {
  InvalidAdminAccessToken: [
    'INVALID_ADMIN_ACCESS_TOKEN',
    'UNPARSABLE_ADMIN_ACCESS_TOKEN',
    'ADMIN_ACCESS_TOKEN_EXPIRED',
    'INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN',
    'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN',
  ],
  ProjectAuthenticationRequired: [
    'PROJECT_AUTHENTICATION_REQUIRED',
    'CLIENT_AUTHENTICATION_REQUIRED',
    'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT',
    'SERVER_AUTHENTICATION_REQUIRED',
    'CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED',
    'CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED',
    'CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED',
    'SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED',
    'ADMIN_AUTHENTICATION_REQUIRED',
  ],
  InvalidAccessToken: [
    'INVALID_ACCESS_TOKEN',
    'UNPARSABLE_ACCESS_TOKEN',
    'ACCESS_TOKEN_EXPIRED',
    'INVALID_PROJECT_FOR_ACCESS_TOKEN',
  ],
  RefreshTokenError: [
    'REFRESH_TOKEN_ERROR',
    'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    'PROVIDER_REJECTED',
    'CANNOT_DELETE_CURRENT_SESSION',
  ],
  PasswordRequirementsNotMet: ['PASSWORD_REQUIREMENTS_NOT_MET', 'PASSWORD_TOO_SHORT', 'PASSWORD_TOO_LONG'],
  VerificationCodeError: [
    'VERIFICATION_ERROR',
    'CODE_NOT_FOUND',
    'EXPIRED',
    'ALREADY_USED',
    'MAX_ATTEMPTS_REACHED',
  ],
  ApiKeyNotValid: [
    'API_KEY_NOT_VALID',
    'API_KEY_EXPIRED',
    'API_KEY_REVOKED',
    'WRONG_API_KEY_TYPE',
    'API_KEY_NOT_FOUND',
    'PUBLIC_API_KEY_CANNOT_BE_REVOKED',
  ],
} as const satisfies Record<string, readonly KnownErrorCode[]>;

export type KnownErrorGroupName = keyof typeof knownErrorGroups;

/**
 * Whether `error` is a known error of the given family.
 *
 * @example
 * if (isKnownErrorInGroup(e, 'RefreshTokenError')) return null; // the refresh yields no token
 */
export function isKnownErrorInGroup(error: unknown, group: KnownErrorGroupName): error is KnownError {
  const codes: readonly string[] = knownErrorGroups[group];
  return error instanceof KnownError && codes.includes(error.code);
}

/**
 * Rebuilds a known error from a response body `{code, details?, error}` (the SDK side of the wire).
 * The result is an instance of the catalogue class for that code, so `instanceof` works, and it
 * keeps the server's message and details as sent. An unknown code becomes UNSUPPORTED_ERROR (500).
 *
 * @example
 * const err = knownErrorFromBody({ code: 'USER_NOT_FOUND', error: 'User not found.' });
 * err instanceof KnownErrors.UserNotFound; // true
 */
export function knownErrorFromBody(body: { code: string; error: string; details?: unknown }): KnownError {
  const cls = knownErrorsByCode.get(body.code);
  if (cls === undefined) return new KnownErrors.UnsupportedError(body.code);
  const details =
    typeof body.details === 'object' && body.details !== null && !Array.isArray(body.details)
      ? (body.details as Record<string, unknown>)
      : undefined;
  // Construct through the base constructor with the catalogue class as new.target: the prototype
  // (hence instanceof) is the specific class, but the server's message and details are kept
  // instead of being rebuilt from constructor arguments we do not have.
  const error: KnownError = Reflect.construct(KnownError, [cls.code, cls.status, body.error, details], cls);
  Object.defineProperty(error, 'name', { value: cls.code, writable: true, configurable: true, enumerable: true });
  return error;
}
