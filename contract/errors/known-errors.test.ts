import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { KnownError } from './known-error.js';
import { KnownErrors, knownErrorsByCode, knownErrorFromBody, knownErrorGroups, isKnownErrorInGroup, type KnownErrorOf } from './known-errors.js';

type Key = keyof typeof KnownErrors;

/** The entries whose constructor needs arguments (the others are sampled with none, below). */
type KeyWithArguments = {
  [K in Key]: [] extends ConstructorParameters<(typeof KnownErrors)[K]> ? never : K;
}[Key];

/**
 * Arguments for the entries that need them, and for a few whose optional arguments are worth
 * covering. Typed so that adding an entry that needs arguments without a sample here fails the
 * typecheck; every other entry is constructed with no arguments.
 */
const samplesWithArguments: { [K in KeyWithArguments]: () => KnownErrorOf<K> } & { [K in Key]?: () => KnownErrorOf<K> } = {
  UnsupportedError: () => new KnownErrors.UnsupportedError('SOME_FUTURE_CODE'),
  SharedOAuthKeysNotConfigured: () => new KnownErrors.SharedOAuthKeysNotConfigured('github'),
  OAuthProviderRequestFailed: () => new KnownErrors.OAuthProviderRequestFailed('github'),
  PaymentProviderRequestFailed: () => new KnownErrors.PaymentProviderRequestFailed(),
  SchemaError: () => new KnownErrors.SchemaError('email must be a valid email', { issues: [{ path: 'body.email', message: 'must be a valid email' }] }),
  AllOverloadsFailed: () => new KnownErrors.AllOverloadsFailed([{ a: 1 }, { b: 2 }]),
  RouteNotFound: () => new KnownErrors.RouteNotFound('GET /api/v1/nope'),
  MethodNotAllowed: () => new KnownErrors.MethodNotAllowed('DELETE /api/v1/users', ['GET', 'POST']),
  PayloadTooLarge: () => new KnownErrors.PayloadTooLarge(1_000_000),
  RequestHeadersTooLarge: () => new KnownErrors.RequestHeadersTooLarge(16_384),
  UriTooLong: () => new KnownErrors.UriTooLong(8_192),
  RateLimited: () => new KnownErrors.RateLimited(30),
  QuotaExceeded: () => new KnownErrors.QuotaExceeded('api_keys', 100),
  InternalServerError: () => new KnownErrors.InternalServerError('req_123'),
  DatabaseUnavailable: () => new KnownErrors.DatabaseUnavailable(2),
  InvalidAccessType: () => new KnownErrors.InvalidAccessType('root'),
  AccessTypeWithoutProjectId: () => new KnownErrors.AccessTypeWithoutProjectId('client'),
  InsufficientAccessType: () => new KnownErrors.InsufficientAccessType('client', ['server', 'admin']),
  InvalidPublishableClientKey: () => new KnownErrors.InvalidPublishableClientKey('p1'),
  InvalidSecretServerKey: () => new KnownErrors.InvalidSecretServerKey('p1'),
  InvalidSuperSecretAdminKey: () => new KnownErrors.InvalidSuperSecretAdminKey('p1'),
  AdminAccessTokenExpired: () => new KnownErrors.AdminAccessTokenExpired(new Date(1_700_000_000_000)),
  PublishableClientKeyRequiredForProject: () => new KnownErrors.PublishableClientKeyRequiredForProject('p1'),
  AccessTokenExpired: () => new KnownErrors.AccessTokenExpired(new Date(1_700_000_000_000)),
  InvalidProjectForAccessToken: () => new KnownErrors.InvalidProjectForAccessToken('p1', 'p2'),
  UserWithEmailAlreadyExists: () => new KnownErrors.UserWithEmailAlreadyExists('a@example.com'),
  UserIdDoesNotExist: () => new KnownErrors.UserIdDoesNotExist('u1'),
  PasswordTooShort: () => new KnownErrors.PasswordTooShort(8),
  PasswordTooLong: () => new KnownErrors.PasswordTooLong(70),
  EmailIsNotPrimaryEmail: () => new KnownErrors.EmailIsNotPrimaryEmail('b@example.com', 'a@example.com'),
  RedirectUrlNotWhitelisted: () => new KnownErrors.RedirectUrlNotWhitelisted('https://evil.example'),
  ProjectNotFound: () => new KnownErrors.ProjectNotFound('p1'),
  CurrentProjectNotFound: () => new KnownErrors.CurrentProjectNotFound('p1'),
  LastProjectOwner: () => new KnownErrors.LastProjectOwner('t1', 'u1'),
  ProductionModeHasProblems: () =>
    new KnownErrors.ProductionModeHasProblems([{ message: 'Localhost is not allowed in production mode', relative_fix_url: '/projects/p1/domains' }]),
  BranchDoesNotExist: () => new KnownErrors.BranchDoesNotExist('dev'),
  PasskeyRegistrationFailed: () => new KnownErrors.PasskeyRegistrationFailed('Registration failed.'),
  PasskeyWebAuthnError: () => new KnownErrors.PasskeyWebAuthnError('The ceremony was aborted.', 'ERROR_CEREMONY_ABORTED'),
  PasskeyAuthenticationFailed: () => new KnownErrors.PasskeyAuthenticationFailed('Authentication failed.'),
  PasskeyNotFound: () => new KnownErrors.PasskeyNotFound('00000000-0000-4000-8000-000000000000'),
  PermissionNotFound: () => new KnownErrors.PermissionNotFound('read:docs'),
  WrongPermissionScope: () => new KnownErrors.WrongPermissionScope('read:docs', 'project', 'team'),
  ContainedPermissionNotFound: () => new KnownErrors.ContainedPermissionNotFound('read:docs'),
  PermissionIdAlreadyExists: () => new KnownErrors.PermissionIdAlreadyExists('read:docs'),
  TeamNotFound: () => new KnownErrors.TeamNotFound('t1'),
  TeamAlreadyExists: () => new KnownErrors.TeamAlreadyExists('t1'),
  TeamMembershipNotFound: () => new KnownErrors.TeamMembershipNotFound('t1', 'u1'),
  TeamMembershipAlreadyExists: () => new KnownErrors.TeamMembershipAlreadyExists('t1', 'u1'),
  ProjectPermissionRequired: () => new KnownErrors.ProjectPermissionRequired('u1', 'admin'),
  TeamPermissionRequired: () => new KnownErrors.TeamPermissionRequired('t1', 'u1', '$invite_members'),
  InvalidOAuthClientIdOrSecret: () => new KnownErrors.InvalidOAuthClientIdOrSecret('p1'),
  InvalidScope: () => new KnownErrors.InvalidScope('everything'),
  OAuthProviderNotFoundOrNotEnabled: () => new KnownErrors.OAuthProviderNotFoundOrNotEnabled('github'),
  InvalidSharedOAuthProviderId: () => new KnownErrors.InvalidSharedOAuthProviderId('myspace'),
  InvalidStandardOAuthProviderId: () => new KnownErrors.InvalidStandardOAuthProviderId('myspace'),
  ContactChannelAlreadyUsedForAuthBySomeoneElse: () => new KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse('email', 'a@example.com', true),
  MultiFactorAuthenticationRequired: () => new KnownErrors.MultiFactorAuthenticationRequired('attempt_abc'),
  CliAuthError: () => new KnownErrors.CliAuthError('Timed out waiting for CLI authentication.'),
  WrongApiKeyType: () => new KnownErrors.WrongApiKeyType('user', 'team'),
  ApiKeysNotEnabled: () => new KnownErrors.ApiKeysNotEnabled('team'),
  EmailRenderingError: () => new KnownErrors.EmailRenderingError('Unexpected token'),
  EmailRateLimited: () => new KnownErrors.EmailRateLimited(120, 1000),
  EmailServerHostNotAllowed: () => new KnownErrors.EmailServerHostNotAllowed('smtp.internal'),
  EmailServerPortNotAllowed: () => new KnownErrors.EmailServerPortNotAllowed(6379, [25, 465, 587, 2525]),
  SentEmailNotFound: () => new KnownErrors.SentEmailNotFound('00000000-0000-4000-8000-000000000000'),
  EmailContentNotFound: () => new KnownErrors.EmailContentNotFound('theme', '00000000-0000-4000-8000-000000000000'),
  EmailPreviewNeedsOwner: () => new KnownErrors.EmailPreviewNeedsOwner('no_owner_session'),
  EmailServerSendFailed: () => new KnownErrors.EmailServerSendFailed('auth_failed', 'The SMTP server refused the username or password (SMTP 535).'),
  EmailScheduleTooFar: () => new KnownErrors.EmailScheduleTooFar(2_000_000_000_000, 1_900_000_000_000),
  EmailRecipientsNotFound: () => new KnownErrors.EmailRecipientsNotFound(['00000000-0000-4000-8000-000000000000']),
  ContactChannelNotFound: () => new KnownErrors.ContactChannelNotFound('00000000-0000-4000-8000-000000000000'),
  ContactChannelAlreadyExists: () => new KnownErrors.ContactChannelAlreadyExists('email', 'a@example.com'),
  ItemNotFound: () => new KnownErrors.ItemNotFound('credits'),
  ItemCustomerTypeDoesNotMatch: () => new KnownErrors.ItemCustomerTypeDoesNotMatch('credits', 'u1', 'team', 'user'),
  CustomerDoesNotExist: () => new KnownErrors.CustomerDoesNotExist('u1'),
  ProductDoesNotExist: () => new KnownErrors.ProductDoesNotExist('pro', 'server_only'),
  ProductCustomerTypeDoesNotMatch: () => new KnownErrors.ProductCustomerTypeDoesNotMatch('pro', 'u1', 'team', 'user'),
  ProductAlreadyGranted: () => new KnownErrors.ProductAlreadyGranted('pro', 'u1'),
  ItemQuantityInsufficientAmount: () => new KnownErrors.ItemQuantityInsufficientAmount('credits', 'u1', -5),
  DataVaultStoreDoesNotExist: () => new KnownErrors.DataVaultStoreDoesNotExist('secrets'),
  DataVaultStoreHashedKeyDoesNotExist: () => new KnownErrors.DataVaultStoreHashedKeyDoesNotExist('secrets', 'abc123'),
  WebhookEndpointNotFound: () => new KnownErrors.WebhookEndpointNotFound('5a0e6f7c-0000-4000-8000-000000000000'),
  WebhookDeliveryNotFound: () => new KnownErrors.WebhookDeliveryNotFound('5a0e6f7c-0000-4000-8000-000000000001'),
  WebhookUrlNotAllowed: () => new KnownErrors.WebhookUrlNotAllowed(),
  WebhooksTokenOutOfScope: () => new KnownErrors.WebhooksTokenOutOfScope(),
  RecentSignInRequired: () => new KnownErrors.RecentSignInRequired(300),
  NotificationCategoryNotFound: () => new KnownErrors.NotificationCategoryNotFound('Newsletter'),
  NotificationCategoryCannotBeDisabled: () => new KnownErrors.NotificationCategoryCannotBeDisabled('Transactional'),
  NotificationCategoryAlreadyExists: () => new KnownErrors.NotificationCategoryAlreadyExists('Marketing'),
  AiChatThreadFull: () => new KnownErrors.AiChatThreadFull(500),
  AiProviderRateLimited: () => new KnownErrors.AiProviderRateLimited(20),
  AiProviderError: () => new KnownErrors.AiProviderError('the provider answered 500'),
};

/** One instance of every catalogue entry. */
const samples = Object.fromEntries(
  Object.entries(KnownErrors).map(([key, cls]) => [key, samplesWithArguments[key as Key] ?? (() => new (cls as new () => KnownError)())]),
) as { [K in Key]: () => KnownErrorOf<K> };

const entries = Object.entries(KnownErrors) as [Key, (typeof KnownErrors)[Key]][];

/** Every code section 8 of the spec names, with its status where the spec gives one (else null). */
const specCodes: [code: string, status: number | null][] = [
  ['BODY_PARSING_ERROR', 400],
  ['SCHEMA_ERROR', 400],
  ['ALL_OVERLOADS_FAILED', 400],
  ['PROJECT_KEY_WITHOUT_ACCESS_TYPE', 400],
  ['INVALID_ACCESS_TYPE', 400],
  ['ACCESS_TYPE_WITHOUT_PROJECT_ID', 400],
  ['ACCESS_TYPE_REQUIRED', 400],
  ['INSUFFICIENT_ACCESS_TYPE', 401],
  ['INVALID_PUBLISHABLE_CLIENT_KEY', 401],
  ['INVALID_SECRET_SERVER_KEY', 401],
  ['INVALID_SUPER_SECRET_ADMIN_KEY', 401],
  ['UNPARSABLE_ADMIN_ACCESS_TOKEN', 401],
  ['ADMIN_ACCESS_TOKEN_EXPIRED', 401],
  ['INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN', 401],
  ['ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN', 401],
  ['PROJECT_AUTHENTICATION_REQUIRED', 401],
  ['CLIENT_AUTHENTICATION_REQUIRED', 401],
  ['PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT', 401],
  ['SERVER_AUTHENTICATION_REQUIRED', 401],
  ['CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED', 401],
  ['CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED', 401],
  ['CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED', 401],
  ['ADMIN_AUTHENTICATION_REQUIRED', 401],
  ['EXPECTED_INTERNAL_PROJECT', 401],
  ['USER_AUTHENTICATION_REQUIRED', 401],
  ['UNPARSABLE_ACCESS_TOKEN', 401],
  ['ACCESS_TOKEN_EXPIRED', 401],
  ['INVALID_PROJECT_FOR_ACCESS_TOKEN', 401],
  ['REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401],
  ['PROVIDER_REJECTED', 401],
  ['CANNOT_DELETE_CURRENT_SESSION', 400],
  ['USER_EMAIL_ALREADY_EXISTS', 409],
  ['EMAIL_NOT_VERIFIED', 400],
  ['USER_ID_DOES_NOT_EXIST', 400],
  ['USER_NOT_FOUND', 404],
  ['EMAIL_PASSWORD_MISMATCH', 400],
  ['PASSWORD_TOO_SHORT', 400],
  ['PASSWORD_TOO_LONG', 400],
  ['USER_DOES_NOT_HAVE_PASSWORD', 400],
  ['PASSWORD_CONFIRMATION_MISMATCH', 400],
  ['EMAIL_ALREADY_VERIFIED', 409],
  ['EMAIL_NOT_ASSOCIATED_WITH_USER', null],
  ['EMAIL_IS_NOT_PRIMARY_EMAIL', 400],
  ['SIGN_UP_NOT_ENABLED', null],
  ['PASSWORD_AUTHENTICATION_NOT_ENABLED', null],
  ['PASSKEY_AUTHENTICATION_NOT_ENABLED', null],
  ['ANONYMOUS_ACCOUNTS_NOT_ENABLED', 400],
  ['ANONYMOUS_AUTHENTICATION_NOT_ALLOWED', 401],
  ['REDIRECT_URL_NOT_WHITELISTED', 400],
  ['CANNOT_GET_OWN_USER_WITHOUT_USER', null],
  ['PROJECT_NOT_FOUND', 404],
  ['CURRENT_PROJECT_NOT_FOUND', 400],
  ['BRANCH_DOES_NOT_EXIST', 400],
  ['CODE_NOT_FOUND', 404],
  ['EXPIRED', 400],
  ['ALREADY_USED', 409],
  ['MAX_ATTEMPTS_REACHED', 400],
  ['PASSKEY_REGISTRATION_FAILED', 400],
  ['PASSKEY_WEBAUTHN_ERROR', 400],
  ['PASSKEY_AUTHENTICATION_FAILED', 400],
  ['PASSKEY_NOT_FOUND', 404],
  ['PERMISSION_NOT_FOUND', 404],
  ['WRONG_PERMISSION_SCOPE', 404],
  ['CONTAINED_PERMISSION_NOT_FOUND', 400],
  ['PERMISSION_ID_ALREADY_EXISTS', 400],
  ['TEAM_NOT_FOUND', 404],
  ['TEAM_ALREADY_EXISTS', 409],
  ['TEAM_MEMBERSHIP_NOT_FOUND', 404],
  ['TEAM_MEMBERSHIP_ALREADY_EXISTS', 409],
  ['PROJECT_PERMISSION_REQUIRED', null],
  ['TEAM_PERMISSION_REQUIRED', null],
  ['OAUTH_CONNECTION_NOT_CONNECTED_TO_USER', null],
  ['OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER', null],
  ['OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE', null],
  ['OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS', null],
  ['OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS', null],
  ['INVALID_OAUTH_CLIENT_ID_OR_SECRET', null],
  ['INVALID_SCOPE', null],
  ['USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION', null],
  ['OUTER_OAUTH_TIMEOUT', 408],
  ['OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED', null],
  ['OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN', null],
  ['INVALID_SHARED_OAUTH_PROVIDER_ID', null],
  ['INVALID_STANDARD_OAUTH_PROVIDER_ID', null],
  ['INVALID_AUTHORIZATION_CODE', null],
  ['OAUTH_PROVIDER_ACCESS_DENIED', null],
  ['CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', 409],
  ['MULTI_FACTOR_AUTHENTICATION_REQUIRED', null],
  ['INVALID_TOTP_CODE', null],
  ['INVALID_POLLING_CODE', 400],
  ['CLI_AUTH_ERROR', 400],
  ['CLI_AUTH_EXPIRED_ERROR', 400],
  ['CLI_AUTH_USED_ERROR', 400],
  ['API_KEY_EXPIRED', 401],
  ['API_KEY_REVOKED', 401],
  ['WRONG_API_KEY_TYPE', 400],
  ['API_KEY_NOT_FOUND', 404],
  ['PUBLIC_API_KEY_CANNOT_BE_REVOKED', 400],
  ['EMAIL_RENDERING_ERROR', 400],
  ['REQUIRES_CUSTOM_EMAIL_SERVER', 400],
  ['EMAIL_TEMPLATE_ALREADY_EXISTS', 409],
  ['ITEM_NOT_FOUND', 404],
  ['STRIPE_ACCOUNT_INFO_NOT_FOUND', 404],
  ['ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH', 400],
  ['CUSTOMER_DOES_NOT_EXIST', 400],
  ['PRODUCT_DOES_NOT_EXIST', 400],
  ['PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH', 400],
  ['PRODUCT_ALREADY_GRANTED', 400],
  ['ITEM_QUANTITY_INSUFFICIENT_AMOUNT', 400],
  ['DATA_VAULT_STORE_DOES_NOT_EXIST', 400],
  ['DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST', 400],
  ['WORKFLOW_TOKEN_DOES_NOT_EXIST', 400],
  ['WORKFLOW_TOKEN_EXPIRED', 400],
  ['UNSUPPORTED_ERROR', 500],
  // needed by the platform and the client behaviour of section 7
  ['RATE_LIMITED', 429],
  ['INFINITE_LOOP_DETECTED', 508],
  ['NOT_FOUND', 404],
  ['METHOD_NOT_ALLOWED', 405],
  ['PAYLOAD_TOO_LARGE', 413],
  ['INTERNAL_SERVER_ERROR', 500],
  // completes the *_AUTHENTICATION_REQUIRED family for server-or-admin endpoints
  ['SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED', 401],
];

describe('the catalogue', () => {
  it('is assembled from the area files without one key hiding another', async () => {
    // KnownErrors spreads one object per area; a key defined in two areas would silently keep only
    // the last, so count the keys of every area module against the registry.
    const dir = path.dirname(fileURLToPath(import.meta.url));
    const areaFiles = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.startsWith('known-error') && !name.endsWith('.test.ts'));
    const areaKeys: string[] = [];
    for (const file of areaFiles) {
      const module = (await import(path.join(dir, file))) as Record<string, unknown>;
      for (const [name, area] of Object.entries(module)) if (name.endsWith('Errors')) areaKeys.push(...Object.keys(area as object));
    }
    expect(areaFiles.length).toBeGreaterThan(10);
    expect(areaKeys.length).toBe(entries.length);
    expect(new Set(areaKeys).size).toBe(areaKeys.length);
  });

  it('has unique codes (the code -> class map holds every entry)', () => {
    const codes = entries.map(([, cls]) => cls.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(knownErrorsByCode.size).toBe(entries.length);
    for (const [, cls] of entries) expect(knownErrorsByCode.get(cls.code)).toBe(cls);
  });

  it('uses UPPER_SNAKE codes and PascalCase keys', () => {
    for (const [key, cls] of entries) {
      expect(cls.code, key).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(key).toMatch(/^[A-Z][A-Za-z0-9]*$/);
    }
  });

  it('gives every code a status in 400..599', () => {
    for (const [, cls] of entries) {
      expect(Number.isInteger(cls.status), cls.code).toBe(true);
      expect(cls.status, cls.code).toBeGreaterThanOrEqual(400);
      expect(cls.status, cls.code).toBeLessThanOrEqual(599);
    }
  });

  it('contains every code of spec section 8, with the spec status where it gives one', () => {
    for (const [code, status] of specCodes) {
      const cls = knownErrorsByCode.get(code);
      expect(cls, `missing ${code}`).toBeDefined();
      if (status !== null) expect(cls?.status, code).toBe(status);
    }
  });

  it('has the keys the spec uses for error types', () => {
    const specTypeNames = [
      'MultiFactorAuthenticationRequired',
      'InvalidTotpCode',
      'OAuthProviderAccountIdAlreadyUsedForSignIn',
      'OAuthConnectionDoesNotHaveRequiredScope',
      'OAuthConnectionNotConnectedToUser',
      'ItemQuantityInsufficientAmount',
      'ApiKeyNotValid',
      'DataVaultStoreHashedKeyDoesNotExist',
      'RefreshTokenError',
      'CannotGetOwnUserWithoutUser',
      'UserNotFound',
      'EmailAlreadyVerified',
      'RedirectUrlNotWhitelisted',
      'VerificationCodeError',
      'PasswordConfirmationMismatch',
      'PasswordRequirementsNotMet',
      'PasskeyRegistrationFailed',
      'PasskeyAuthenticationFailed',
      'EmailPasswordMismatch',
      'UserWithEmailAlreadyExists',
      'ProjectNotFound',
      'SchemaError',
      'InvalidAccessToken',
      'InvalidAdminAccessToken',
      'ApiKeyNotFound',
    ];
    for (const name of specTypeNames) expect(Object.keys(KnownErrors)).toContain(name);
  });

  it('has a group for every family the spec handles together, each listing real codes', () => {
    for (const [group, codes] of Object.entries(knownErrorGroups)) {
      expect(Object.keys(KnownErrors), group).toContain(group);
      for (const code of codes) expect(knownErrorsByCode.has(code), code).toBe(true);
    }
  });
});

describe('every entry, constructed', () => {
  for (const [key, cls] of entries) {
    it(`${key} (${cls.code})`, () => {
      const error = samples[key]();
      expect(error).toBeInstanceOf(cls);
      expect(error).toBeInstanceOf(KnownError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(cls.code);
      expect(error.status).toBe(cls.status);
      expect(error.name).toBe(cls.code);
      expect(error.message.trim().length).toBeGreaterThan(0);
      // Rebranded: no upstream product name, and every header we mention carries our prefix.
      expect(error.message).not.toMatch(/\bStack\b/);
      expect(error.message).not.toMatch(/x-stack-/i);
      for (const header of error.message.match(/\bx-[a-z-]+/gi) ?? []) expect(header).toMatch(/^x-latch-/);
      if (error.details !== undefined) {
        for (const detailKey of Object.keys(error.details)) expect(detailKey, `${cls.code}.${detailKey}`).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      }
      const body = error.toBody();
      expect(body.code).toBe(cls.code);
      expect(body.error).toBe(error.message);
      expect(JSON.parse(JSON.stringify(body))).toEqual(body);
    });
  }
});

describe('messages the spec quotes verbatim', () => {
  it.each([
    [new KnownErrors.EmailPasswordMismatch(), 'Wrong e-mail or password.'],
    [new KnownErrors.PasswordConfirmationMismatch(), 'Passwords do not match.'],
    [new KnownErrors.OuterOAuthTimeout(), 'The OAuth flow has timed out. Please sign in again.'],
    [new KnownErrors.InvalidTotpCode(), 'The TOTP code is invalid. Please try again.'],
    [new KnownErrors.CliAuthExpiredError(), 'CLI authentication request expired. Please try again.'],
    [new KnownErrors.CliAuthUsedError(), 'This authentication token has already been used.'],
    [new KnownErrors.UserNotFound(), 'User not found.'],
  ])('%s', (error, message) => {
    expect(error.message).toBe(message);
  });

  it('keeps the CLI time-out text when passed to CLI_AUTH_ERROR', () => {
    expect(new KnownErrors.CliAuthError('Timed out waiting for CLI authentication.').message).toBe('Timed out waiting for CLI authentication.');
  });
});

describe('typed details', () => {
  it('carries the values the constructor was given', () => {
    expect(new KnownErrors.PasswordTooShort(8).details).toEqual({ min_length: 8 });
    expect(new KnownErrors.PasswordTooLong(70).details).toEqual({ max_length: 70 });
    expect(new KnownErrors.InvalidAccessType('root').details).toEqual({ access_type: 'root' });
    expect(new KnownErrors.InsufficientAccessType('client', ['server']).details).toEqual({
      actual_access_type: 'client',
      allowed_access_types: ['server'],
    });
    for (const cls of [KnownErrors.InvalidPublishableClientKey, KnownErrors.InvalidSecretServerKey, KnownErrors.InvalidSuperSecretAdminKey]) {
      expect(new cls('p1').details).toEqual({ project_id: 'p1' });
    }
    expect(new KnownErrors.AccessTokenExpired(new Date(1234)).details).toEqual({ expired_at_millis: 1234 });
    expect(new KnownErrors.AccessTokenExpired().details).toEqual({ expired_at_millis: null });
    expect(new KnownErrors.InvalidProjectForAccessToken('a', 'b').details).toEqual({
      expected_project_id: 'a',
      actual_project_id: 'b',
    });
    expect(new KnownErrors.UserWithEmailAlreadyExists('a@example.com').details).toEqual({
      email: 'a@example.com',
      would_work_if_email_was_verified: false,
    });
    expect(new KnownErrors.UserIdDoesNotExist('u1').details).toEqual({ user_id: 'u1' });
    expect(new KnownErrors.ProjectNotFound('p1').details).toEqual({ project_id: 'p1' });
    expect(new KnownErrors.BranchDoesNotExist('dev').details).toEqual({ branch_id: 'dev' });
    expect(new KnownErrors.MultiFactorAuthenticationRequired('att').details).toEqual({ attempt_code: 'att' });
    expect(new KnownErrors.RateLimited(12).details).toEqual({ retry_after_seconds: 12 });
    expect(new KnownErrors.ItemQuantityInsufficientAmount('credits', 'u1', 3).details).toEqual({
      item_id: 'credits',
      customer_id: 'u1',
      quantity: 3,
    });
    expect(new KnownErrors.UnsupportedError('X').details).toEqual({ original_error_code: 'X' });
  });

  it('omits details from the body when there are none', () => {
    expect(new KnownErrors.UserNotFound().toBody()).toEqual({ code: 'USER_NOT_FOUND', error: 'User not found.' });
    expect('details' in new KnownErrors.UserNotFound().toBody()).toBe(false);
    expect(new KnownErrors.SchemaError('bad').toBody()).toEqual({ code: 'SCHEMA_ERROR', error: 'bad' });
  });

  it('puts details in the body when there are some', () => {
    expect(new KnownErrors.PasswordTooShort(8).toBody()).toEqual({
      code: 'PASSWORD_TOO_SHORT',
      details: { min_length: 8 },
      error: 'Password too short. Minimum length is 8.',
    });
  });

  it('leaks nothing but the request id from an internal error', () => {
    const error = new KnownErrors.InternalServerError('req_42');
    expect(error.status).toBe(500);
    expect(error.toBody()).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      details: { request_id: 'req_42' },
      error: 'An internal server error occurred. If it persists, report it with the request ID req_42.',
    });
  });
});

describe('instanceof', () => {
  it('tells catalogue classes apart', () => {
    const error: unknown = new KnownErrors.UserNotFound();
    expect(error instanceof KnownErrors.UserNotFound).toBe(true);
    expect(error instanceof KnownError).toBe(true);
    expect(error instanceof KnownErrors.ProjectNotFound).toBe(false);
    expect(new KnownErrors.ProjectNotFound('p') instanceof KnownErrors.UserNotFound).toBe(false);
  });
});

describe('groups', () => {
  it('matches members of a family and nothing else', () => {
    expect(isKnownErrorInGroup(new KnownErrors.ApiKeyExpired(), 'ApiKeyNotValid')).toBe(true);
    expect(isKnownErrorInGroup(new KnownErrors.ApiKeyNotFound(), 'ApiKeyNotValid')).toBe(true);
    expect(isKnownErrorInGroup(new KnownErrors.RefreshTokenNotFoundOrExpired(), 'RefreshTokenError')).toBe(true);
    expect(isKnownErrorInGroup(new KnownErrors.PasswordTooShort(8), 'PasswordRequirementsNotMet')).toBe(true);
    expect(isKnownErrorInGroup(new KnownErrors.VerificationCodeExpired(), 'VerificationCodeError')).toBe(true);
    expect(isKnownErrorInGroup(new KnownErrors.ServerOrAdminAuthenticationRequired(), 'ProjectAuthenticationRequired')).toBe(true);
    expect(isKnownErrorInGroup(new KnownErrors.UserNotFound(), 'ApiKeyNotValid')).toBe(false);
    expect(isKnownErrorInGroup(new Error('API_KEY_EXPIRED'), 'ApiKeyNotValid')).toBe(false);
  });
});

describe('knownErrorFromBody', () => {
  it('rebuilds the catalogue class from a wire body, keeping message and details', () => {
    for (const [key, cls] of entries) {
      const sent = samples[key]();
      const received = knownErrorFromBody(JSON.parse(JSON.stringify(sent.toBody())));
      expect(received).toBeInstanceOf(cls);
      expect(received).toBeInstanceOf(KnownError);
      expect(received.code).toBe(cls.code);
      expect(received.status).toBe(cls.status);
      expect(received.name).toBe(cls.code);
      expect(received.toBody()).toEqual(sent.toBody());
    }
  });

  it('turns an unknown code into UNSUPPORTED_ERROR (500)', () => {
    const received = knownErrorFromBody({ code: 'FROM_THE_FUTURE', error: 'whatever' });
    expect(received).toBeInstanceOf(KnownErrors.UnsupportedError);
    expect(received.status).toBe(500);
    expect(received.details).toEqual({ original_error_code: 'FROM_THE_FUTURE' });
  });

  it('drops details that are not an object', () => {
    const received = knownErrorFromBody({ code: 'USER_NOT_FOUND', error: 'User not found.', details: [1, 2] });
    expect(received.details).toBeUndefined();
  });
});
