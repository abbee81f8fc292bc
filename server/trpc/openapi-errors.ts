import { KnownError } from '../../contract/errors/known-error.js';
import { knownErrorGroups, knownErrorsByCode, type KnownErrorCode } from '../../contract/errors/known-errors.js';
import type { AccessType } from '../../contract/access-type.js';
import type { ProcedureAccess } from './procedures.js';

const VERIFICATION = knownErrorGroups.VerificationCodeError;
const PASSWORD = knownErrorGroups.PasswordRequirementsNotMet;

/**
 * The catalogued codes each area of the API can answer beyond the credential checks, by tag (the
 * domain's `restOperations` tags) or, where one tag holds several ways in, by path prefix. `openapi-errors.test.ts` reads every domain folder and fails when
 * a code its code throws is missing here, so the reference cannot fall behind the services.
 */
export const ERRORS_BY_TAG: Record<string, readonly KnownErrorCode[]> = {
  '/auth/password': [
    ...(['USER_EMAIL_ALREADY_EXISTS', 'EMAIL_PASSWORD_MISMATCH', 'USER_NOT_FOUND', 'USER_DOES_NOT_HAVE_PASSWORD', 'USER_ALREADY_HAS_PASSWORD'] as const),
    ...(['PASSWORD_CONFIRMATION_MISMATCH', 'SIGN_UP_NOT_ENABLED', 'PASSWORD_AUTHENTICATION_NOT_ENABLED', 'REDIRECT_URL_NOT_WHITELISTED'] as const),
    ...(['MULTI_FACTOR_AUTHENTICATION_REQUIRED', 'RATE_LIMITED'] as const),
    ...PASSWORD,
    ...VERIFICATION,
  ],
  '/auth/otp': [
    ...(['MAGIC_LINK_AUTHENTICATION_NOT_ENABLED', 'OTP_AUTHENTICATION_NOT_ENABLED_FOR_USER', 'SIGN_UP_NOT_ENABLED', 'REDIRECT_URL_NOT_WHITELISTED'] as const),
    ...(['MULTI_FACTOR_AUTHENTICATION_REQUIRED', 'RATE_LIMITED'] as const),
    ...VERIFICATION,
  ],
  '/auth/passkey': [
    ...([
      'PASSKEY_AUTHENTICATION_NOT_ENABLED',
      'PASSKEY_AUTHENTICATION_FAILED',
      'PASSKEY_REGISTRATION_FAILED',
      'MULTI_FACTOR_AUTHENTICATION_REQUIRED',
    ] as const),
    ...(['SIGN_UP_NOT_ENABLED'] as const),
    ...VERIFICATION,
  ],
  '/auth/mfa': ['INVALID_TOTP_CODE', 'MULTI_FACTOR_AUTHENTICATION_REQUIRED', 'RATE_LIMITED', ...VERIFICATION],
  '/auth/cli': ['INVALID_POLLING_CODE', 'CLI_AUTH_ERROR', 'CLI_AUTH_EXPIRED_ERROR', 'CLI_AUTH_USED_ERROR', 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED'],
  '/auth/anonymous': ['ANONYMOUS_ACCOUNTS_NOT_ENABLED', 'RATE_LIMITED'],
  '/auth/impersonation': ['USER_ID_DOES_NOT_EXIST', 'RATE_LIMITED', ...VERIFICATION],
  Sessions: [
    'CANNOT_DELETE_CURRENT_SESSION',
    'PROJECT_NOT_FOUND',
    'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    'SESSION_NOT_FOUND',
    'USER_ID_DOES_NOT_EXIST',
    'USER_NOT_FOUND',
  ],
  OAuth: [
    ...(['CANNOT_GET_OWN_USER_WITHOUT_USER', 'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', 'INVALID_AUTHORIZATION_CODE'] as const),
    ...([
      'INVALID_OAUTH_CLIENT_ID_OR_SECRET',
      'INVALID_SHARED_OAUTH_PROVIDER_ID',
      'INVALID_STANDARD_OAUTH_PROVIDER_ID',
      'MULTI_FACTOR_AUTHENTICATION_REQUIRED',
    ] as const),
    ...(['OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS', 'OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER'] as const),
    ...([
      'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE',
      'OAUTH_CONNECTION_NOT_CONNECTED_TO_USER',
      'OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS',
      'INVALID_SCOPE',
    ] as const),
    ...(['OAUTH_PROVIDER_ACCESS_DENIED', 'OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN', 'OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED'] as const),
    ...(['OAUTH_PROVIDER_REQUEST_FAILED', 'OUTER_OAUTH_TIMEOUT', 'PROVIDER_REJECTED', 'SHARED_OAUTH_KEYS_NOT_CONFIGURED', 'SIGN_UP_NOT_ENABLED'] as const),
    ...(['USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION', 'USER_NOT_FOUND'] as const),
  ],
  'Contact channels': [
    ...(['CONTACT_CHANNEL_ALREADY_EXISTS', 'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', 'CONTACT_CHANNEL_NOT_FOUND'] as const),
    ...([
      'EMAIL_ALREADY_VERIFIED',
      'EMAIL_IS_NOT_PRIMARY_EMAIL',
      'EMAIL_NOT_ASSOCIATED_WITH_USER',
      'EMAIL_NOT_VERIFIED',
      'USER_NOT_FOUND',
      'REDIRECT_URL_NOT_WHITELISTED',
      'RATE_LIMITED',
    ] as const),
    ...VERIFICATION,
  ],
  'Data vault': ['DATA_VAULT_STORE_DOES_NOT_EXIST', 'DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST'],
  Emails: [
    ...(['EMAIL_RATE_LIMITED', 'EMAIL_RENDERING_ERROR', 'EMAIL_SERVER_HOST_NOT_ALLOWED', 'EMAIL_SERVER_PORT_NOT_ALLOWED', 'RATE_LIMITED'] as const),
    ...(['REQUIRES_CUSTOM_EMAIL_SERVER', 'EMAIL_NOT_FOUND', 'EMAIL_CONTENT_NOT_FOUND', 'EMAIL_RECIPIENTS_NOT_FOUND', 'EMAIL_TEMPLATE_ALREADY_EXISTS'] as const),
    ...(['EMAIL_PREVIEW_NEEDS_OWNER', 'EMAIL_SERVER_SEND_FAILED'] as const),
  ],
  'Internal API keys': ['API_KEY_NOT_FOUND'],
  Projects: [
    ...(['CURRENT_PROJECT_NOT_FOUND', 'EXPECTED_INTERNAL_PROJECT', 'PROJECT_NOT_FOUND', 'TEAM_MEMBERSHIP_NOT_FOUND', 'TEAM_NOT_FOUND'] as const),
    ...(['LAST_PROJECT_OWNER', 'PRODUCTION_MODE_HAS_PROBLEMS', 'QUOTA_EXCEEDED', 'RATE_LIMITED'] as const),
    ...VERIFICATION,
  ],
  Metrics: [],
  Payments: [
    ...(['CUSTOMER_DOES_NOT_EXIST', 'ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH', 'ITEM_NOT_FOUND', 'ITEM_QUANTITY_INSUFFICIENT_AMOUNT'] as const),
    ...(['PAYMENT_PROVIDER_REQUEST_FAILED', 'PRODUCT_ALREADY_GRANTED', 'PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH', 'PRODUCT_DOES_NOT_EXIST'] as const),
    ...(['STRIPE_ACCOUNT_INFO_NOT_FOUND'] as const),
  ],
  Webhooks: ['WEBHOOK_DELIVERY_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED'],
  'AI chat': ['AI_CHAT_NOT_CONFIGURED', 'AI_PROVIDER_RATE_LIMITED', 'AI_PROVIDER_ERROR', 'AI_CHAT_THREAD_FULL', 'EMAIL_RENDERING_ERROR'],
  'Notification preferences': [
    ...(['NOTIFICATION_CATEGORY_ALREADY_EXISTS', 'NOTIFICATION_CATEGORY_NOT_FOUND', 'NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED'] as const),
    ...(['UNSUBSCRIBE_LINK_INVALID', 'USER_NOT_FOUND'] as const),
  ],
  'Workflow tokens': ['WORKFLOW_TOKEN_DOES_NOT_EXIST'],
  Passkeys: ['PASSKEY_NOT_FOUND', 'RECENT_SIGN_IN_REQUIRED', 'USER_NOT_FOUND', 'PASSKEY_REGISTRATION_FAILED'],
  Permissions: [
    ...(['CONTAINED_PERMISSION_NOT_FOUND', 'PERMISSION_ID_ALREADY_EXISTS', 'PERMISSION_NOT_FOUND', 'TEAM_MEMBERSHIP_NOT_FOUND'] as const),
    ...(['TEAM_NOT_FOUND', 'USER_NOT_FOUND', 'WRONG_PERMISSION_SCOPE', 'TEAM_PERMISSION_REQUIRED', 'PROJECT_PERMISSION_REQUIRED'] as const),
  ],
  'API keys': [
    ...(['API_KEY_EXPIRED', 'API_KEY_NOT_FOUND', 'API_KEY_REVOKED', 'API_KEYS_NOT_ENABLED', 'PUBLIC_API_KEY_CANNOT_BE_REVOKED'] as const),
    ...(['QUOTA_EXCEEDED', 'TEAM_NOT_FOUND', 'USER_NOT_FOUND', 'WRONG_API_KEY_TYPE', 'TEAM_PERMISSION_REQUIRED', 'RATE_LIMITED'] as const),
  ],
  Teams: [
    ...(['TEAM_MEMBERSHIP_ALREADY_EXISTS', 'TEAM_MEMBERSHIP_NOT_FOUND', 'TEAM_NOT_FOUND', 'USER_NOT_FOUND', 'TEAM_PERMISSION_REQUIRED'] as const),
    ...(['RATE_LIMITED', 'REDIRECT_URL_NOT_WHITELISTED', 'LAST_PROJECT_OWNER'] as const),
    ...VERIFICATION,
  ],
  Users: [
    ...(['USER_NOT_FOUND', 'USER_EMAIL_ALREADY_EXISTS', 'RECENT_SIGN_IN_REQUIRED', 'TEAM_MEMBERSHIP_NOT_FOUND', 'QUOTA_EXCEEDED', 'RATE_LIMITED'] as const),
    ...PASSWORD,
  ],
  MFA: ['INVALID_TOTP_CODE', 'TOTP_ENROLLMENT_NOT_STARTED', 'RECENT_SIGN_IN_REQUIRED'],
};

const AUTHENTICATION_REQUIRED: Record<string, KnownErrorCode> = {
  client: 'CLIENT_AUTHENTICATION_REQUIRED',
  server: 'SERVER_AUTHENTICATION_REQUIRED',
  admin: 'ADMIN_AUTHENTICATION_REQUIRED',
  'client,server': 'CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED',
  'client,admin': 'CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED',
  'server,admin': 'SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED',
  'client,server,admin': 'CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED',
};

const KEY_ERRORS: Record<AccessType, readonly KnownErrorCode[]> = {
  client: ['INVALID_PUBLISHABLE_CLIENT_KEY', 'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT'],
  server: ['INVALID_SECRET_SERVER_KEY'],
  admin: ['INVALID_SUPER_SECRET_ADMIN_KEY', ...knownErrorGroups.InvalidAdminAccessToken],
};

/** The codes of the credential checks (server/access/resolve.ts, trpc/procedures.ts) for an access level. */
function accessErrors(access: ProcedureAccess | null): KnownErrorCode[] {
  if (!access) return [];
  const order: AccessType[] = ['client', 'server', 'admin'];
  const allowed = order.filter((level) => access.allowed.includes(level));
  return [
    AUTHENTICATION_REQUIRED[allowed.join(',')]!,
    ...([
      'INSUFFICIENT_ACCESS_TYPE',
      'INVALID_ACCESS_TYPE',
      'ACCESS_TYPE_WITHOUT_PROJECT_ID',
      'ACCESS_TYPE_REQUIRED',
      'PROJECT_KEY_WITHOUT_ACCESS_TYPE',
    ] as const),
    ...(['CURRENT_PROJECT_NOT_FOUND', 'BRANCH_DOES_NOT_EXIST'] as const),
    ...allowed.flatMap((level) => KEY_ERRORS[level]),
    ...(access.readsAccessToken ? (['UNPARSABLE_ACCESS_TOKEN', 'ACCESS_TOKEN_EXPIRED', 'INVALID_PROJECT_FOR_ACCESS_TOKEN'] as const) : []),
    // The calls that act for the signed-in user (access/policy.ts `me`), when a client may make them.
    ...(access.readsAccessToken && allowed.includes('client') ? (['USER_AUTHENTICATION_REQUIRED', 'CANNOT_GET_OWN_USER_WITHOUT_USER'] as const) : []),
  ];
}

/** Every catalogued code an operation can answer, sorted by status then code. */
export function operationErrorCodes(access: ProcedureAccess | null, tags: readonly string[], path: string, hasBody: boolean): KnownErrorCode[] {
  const codes = new Set<KnownErrorCode>(['SCHEMA_ERROR', ...(hasBody ? (['BODY_PARSING_ERROR'] as const) : []), ...accessErrors(access)]);
  const keys = Object.keys(ERRORS_BY_TAG).filter((key) => tags.includes(key) || (key.startsWith('/') && (path === key || path.startsWith(`${key}/`))));
  for (const key of keys) for (const code of ERRORS_BY_TAG[key]!) codes.add(code);
  return [...codes].sort((a, b) => knownErrorsByCode.get(a)!.status - knownErrorsByCode.get(b)!.status || a.localeCompare(b));
}

/** An example body for a code: the catalogue's message, built with placeholder arguments. */
function exampleBody(code: string): Record<string, unknown> {
  const cls = knownErrorsByCode.get(code)! as unknown as new (...args: unknown[]) => KnownError;
  // No arguments first (a fixed message), then placeholders for the builders that take some.
  const placeholders: unknown[][] = [[], ['…', '…'], [60, 60]];
  for (const args of placeholders) {
    try {
      const body = new cls(...args).toBody();
      if (!JSON.stringify(body).includes('undefined')) return body;
    } catch {
      // Some builders need typed arguments: try the next set.
    }
  }
  return { code, error: code };
}

/** One example body per catalogued code the document mentions (components.examples), referenced by the responses. */
export function errorExamples(codes: Iterable<string>): Record<string, unknown> {
  return Object.fromEntries([...new Set(codes)].sort().map((c) => [c, { summary: c, value: exampleBody(c) }]));
}

/** The error responses of an operation, one per status, each listing its codes with an example body per code. */
export function errorResponses(codes: readonly KnownErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, KnownErrorCode[]>();
  for (const code of codes) {
    const status = knownErrorsByCode.get(code)!.status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      {
        description: list.map((c) => `\`${c}\``).join(', '),
        headers: {
          'x-latch-known-error': { $ref: '#/components/headers/KnownError' },
          'x-stack-known-error': { $ref: '#/components/headers/StackKnownError' },
        },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Error' },
            examples: Object.fromEntries(list.map((c) => [c, { $ref: `#/components/examples/${c}` }])),
          },
        },
      },
    ]),
  );
}
