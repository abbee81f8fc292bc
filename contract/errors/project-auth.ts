/** Project authentication: the x-latch-* headers, project keys and admin access tokens (spec section 8, "Project authentication"). */
import { defineFixedError, defineKnownError, defineMessageError } from './known-error.js';
import type { AccessType } from '../access-type.js';

const accessTypeList = (types: readonly AccessType[]): string => types.map((t) => `'${t}'`).join(' or ');

/** Where a message refers the reader to the REST authentication rules. */
const AUTH_HEADERS_HINT =
  "Every request to /api/v1 must send x-latch-project-id and x-latch-access-type ('client', 'server' or 'admin') " +
  'plus the matching key: x-latch-publishable-client-key for client, x-latch-secret-server-key for server, ' +
  'x-latch-super-secret-admin-key or x-latch-admin-access-token for admin.';

/** The three project keys are refused alike: the message names the header, the details the project. */
const invalidProjectKey = <C extends string>(code: C, header: string, keyName: string) =>
  defineKnownError(code, 401, (projectId: string) => ({
    message:
      `The ${header} header is not a valid ${keyName} for the project ${JSON.stringify(projectId)}. ` +
      'Check that the project exists, that the key belongs to it and that the key has not been revoked.',
    details: { project_id: projectId },
  }));

export const projectAuthErrors = {
  ProjectKeyWithoutAccessType: defineFixedError(
    'PROJECT_KEY_WITHOUT_ACCESS_TYPE',
    400,
    'A project key or an admin access token was provided, but the x-latch-access-type header is missing. ' +
      "Set it to 'client', 'server' or 'admin' to match the key you send.",
  ),

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

  AccessTypeRequired: defineFixedError('ACCESS_TYPE_REQUIRED', 400, `You must specify an access level for this Latch project. ${AUTH_HEADERS_HINT}`),

  InsufficientAccessType: defineKnownError('INSUFFICIENT_ACCESS_TYPE', 401, (actualAccessType: AccessType, allowedAccessTypes: readonly AccessType[]) => ({
    message:
      `This endpoint requires the x-latch-access-type header to be ${accessTypeList(allowedAccessTypes)}, ` +
      `but it was '${actualAccessType}'. Call it with the matching key (for example from a server with the secret server key).`,
    details: { actual_access_type: actualAccessType, allowed_access_types: allowedAccessTypes },
  })),

  InvalidPublishableClientKey: invalidProjectKey('INVALID_PUBLISHABLE_CLIENT_KEY', 'x-latch-publishable-client-key', 'publishable client key'),

  InvalidSecretServerKey: invalidProjectKey('INVALID_SECRET_SERVER_KEY', 'x-latch-secret-server-key', 'secret server key'),

  InvalidSuperSecretAdminKey: invalidProjectKey('INVALID_SUPER_SECRET_ADMIN_KEY', 'x-latch-super-secret-admin-key', 'super secret admin key'),

  /** Parent of the admin-access-token errors below (group `InvalidAdminAccessToken`). */
  InvalidAdminAccessToken: defineMessageError('INVALID_ADMIN_ACCESS_TOKEN', 401, 'The x-latch-admin-access-token header is not a valid admin access token.'),

  UnparsableAdminAccessToken: defineFixedError(
    'UNPARSABLE_ADMIN_ACCESS_TOKEN',
    401,
    'The x-latch-admin-access-token header could not be parsed. Send the access token of a signed-in user of the internal project, unmodified.',
  ),

  AdminAccessTokenExpired: defineKnownError('ADMIN_ACCESS_TOKEN_EXPIRED', 401, (expiredAt?: Date) => ({
    message:
      'The admin access token in x-latch-admin-access-token has expired. Refresh it and try again.' +
      (expiredAt ? ` (It expired at ${expiredAt.toISOString()}.)` : ''),
    details: { expired_at_millis: expiredAt?.getTime() ?? null },
  })),

  InvalidProjectForAdminAccessToken: defineFixedError(
    'INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN',
    401,
    'Admin access tokens must be issued by the internal project. The token in x-latch-admin-access-token belongs to another project.',
  ),

  AdminAccessTokenIsNotAdmin: defineFixedError(
    'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN',
    401,
    'The user of the admin access token in x-latch-admin-access-token is not a member of the team that owns this project, ' +
      'so it cannot administer it. Use a token of one of the owners, or the super secret admin key.',
  ),

  /** Parent of the *_AUTHENTICATION_REQUIRED family (group `ProjectAuthenticationRequired`). */
  ProjectAuthenticationRequired: defineMessageError(
    'PROJECT_AUTHENTICATION_REQUIRED',
    401,
    `Project authentication is required for this endpoint. ${AUTH_HEADERS_HINT}`,
  ),

  ClientAuthenticationRequired: defineFixedError(
    'CLIENT_AUTHENTICATION_REQUIRED',
    401,
    'The publishable client key must be provided in the x-latch-publishable-client-key header.',
  ),

  PublishableClientKeyRequiredForProject: defineKnownError('PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT', 401, (projectId?: string) => ({
    message:
      'Client requests to this project need its publishable client key in the x-latch-publishable-client-key header ' +
      '(create one with POST /api/v1/internal/api-keys or in the admin console).',
    details: { project_id: projectId ?? null },
  })),

  ServerAuthenticationRequired: defineFixedError(
    'SERVER_AUTHENTICATION_REQUIRED',
    401,
    'The secret server key must be provided in the x-latch-secret-server-key header.',
  ),

  ClientOrServerAuthenticationRequired: defineFixedError(
    'CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED',
    401,
    'Either the publishable client key (x-latch-publishable-client-key) or the secret server key (x-latch-secret-server-key) must be provided.',
  ),

  ClientOrAdminAuthenticationRequired: defineFixedError(
    'CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED',
    401,
    'Either the publishable client key (x-latch-publishable-client-key) or the super secret admin key (x-latch-super-secret-admin-key) must be provided.',
  ),

  ClientOrServerOrAdminAuthenticationRequired: defineFixedError(
    'CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED',
    401,
    'One of the publishable client key (x-latch-publishable-client-key), the secret server key (x-latch-secret-server-key) ' +
      'or the super secret admin key (x-latch-super-secret-admin-key) must be provided.',
  ),

  /** Latch addition completing the family: the reference catalogue has no server-or-admin member. */
  ServerOrAdminAuthenticationRequired: defineFixedError(
    'SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED',
    401,
    'Either the secret server key (x-latch-secret-server-key) or admin credentials (x-latch-super-secret-admin-key or ' +
      'x-latch-admin-access-token) must be provided. This endpoint cannot be called with a publishable client key.',
  ),

  AdminAuthenticationRequired: defineFixedError(
    'ADMIN_AUTHENTICATION_REQUIRED',
    401,
    'Admin access is required: send the super secret admin key in x-latch-super-secret-admin-key, or an admin access token in x-latch-admin-access-token.',
  ),

  ExpectedInternalProject: defineFixedError(
    'EXPECTED_INTERNAL_PROJECT',
    401,
    "This endpoint is only available on the internal project. Set x-latch-project-id to 'internal'.",
  ),

  UserAuthenticationRequired: defineFixedError(
    'USER_AUTHENTICATION_REQUIRED',
    401,
    "This endpoint requires a signed-in user. Send the user's access token in the x-latch-access-token header.",
  ),
} as const;
