/**
 * The known-error catalogue: every error code Latch puts on the wire, with its HTTP status, its
 * human message and the type of its `details`. This file is the wire contract shared by the server
 * (services throw these, one middleware maps them to responses) and the SDK (which turns a response
 * body back into the same class). Codes never change once published; add new ones instead.
 *
 * The definitions live one file per area (`./<area>.ts`, grouped as the product spec's section 8
 * groups them); this module is the one registry that assembles them, so `KnownErrors.X`, the
 * code -> class map and the families stay in one place. A new area is a new file spread in below.
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
import { KnownError } from './known-error.js';
// Imported in the order of the registry below, which is the order the bundler lays the modules out.
import { genericErrors } from './generic.js';
import { platformErrors } from './platform.js';
import { projectAuthErrors } from './project-auth.js';
import { sessionErrors } from './sessions.js';
import { userErrors } from './users.js';
import { projectErrors } from './projects.js';
import { verificationCodeErrors } from './verification-codes.js';
import { passkeyErrors } from './passkeys.js';
import { permissionErrors } from './permissions.js';
import { teamErrors } from './teams.js';
import { oauthErrors } from './oauth.js';
import { mfaErrors } from './mfa.js';
import { cliErrors } from './cli.js';
import { apiKeyErrors } from './api-keys.js';
import { emailErrors } from './emails.js';
import { notificationErrors } from './notifications.js';
import { paymentErrors } from './payments.js';
import { dataVaultErrors } from './data-vault.js';
import { workflowErrors } from './workflows.js';
import { webhookErrors } from './webhooks.js';

export type { AccessType } from '../access-type.js';
export type { SchemaErrorDetails, SchemaIssue } from './generic.js';
export type { PermissionScope } from './permissions.js';
export type { CustomerType } from './payments.js';

export const KnownErrors = {
  ...genericErrors,
  ...platformErrors,
  ...projectAuthErrors,
  ...sessionErrors,
  ...userErrors,
  ...projectErrors,
  ...verificationCodeErrors,
  ...passkeyErrors,
  ...permissionErrors,
  ...teamErrors,
  ...oauthErrors,
  ...mfaErrors,
  ...cliErrors,
  ...apiKeyErrors,
  ...emailErrors,
  ...notificationErrors,
  ...paymentErrors,
  ...dataVaultErrors,
  ...workflowErrors,
  ...webhookErrors,
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
  InvalidAccessToken: ['INVALID_ACCESS_TOKEN', 'UNPARSABLE_ACCESS_TOKEN', 'ACCESS_TOKEN_EXPIRED', 'INVALID_PROJECT_FOR_ACCESS_TOKEN'],
  RefreshTokenError: ['REFRESH_TOKEN_ERROR', 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 'PROVIDER_REJECTED', 'CANNOT_DELETE_CURRENT_SESSION'],
  PasswordRequirementsNotMet: ['PASSWORD_REQUIREMENTS_NOT_MET', 'PASSWORD_TOO_SHORT', 'PASSWORD_TOO_LONG'],
  VerificationCodeError: ['VERIFICATION_ERROR', 'CODE_NOT_FOUND', 'EXPIRED', 'ALREADY_USED', 'MAX_ATTEMPTS_REACHED'],
  ApiKeyNotValid: ['API_KEY_NOT_VALID', 'API_KEY_EXPIRED', 'API_KEY_REVOKED', 'WRONG_API_KEY_TYPE', 'API_KEY_NOT_FOUND', 'PUBLIC_API_KEY_CANNOT_BE_REVOKED'],
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
    typeof body.details === 'object' && body.details !== null && !Array.isArray(body.details) ? (body.details as Record<string, unknown>) : undefined;
  // Construct through the base constructor with the catalogue class as new.target: the prototype
  // (hence instanceof) is the specific class, but the server's message and details are kept
  // instead of being rebuilt from constructor arguments we do not have.
  const error: KnownError = Reflect.construct(KnownError, [cls.code, cls.status, body.error, details], cls);
  Object.defineProperty(error, 'name', { value: cls.code, writable: true, configurable: true, enumerable: true });
  return error;
}
