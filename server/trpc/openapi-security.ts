import type { AccessType } from '../../contract/access-type.js';
import type { ProcedureAccess } from './procedures.js';

/** The credential headers, each an OpenAPI apiKey scheme; a requirement object names the ones sent together. */
export const SECURITY_HEADERS: Record<string, string> = {
  'x-latch-project-id': 'The project id.',
  'x-latch-access-type': 'client, server or admin.',
  'x-latch-publishable-client-key': 'Client access: the publishable client key (not needed for the internal project).',
  'x-latch-secret-server-key': 'Server access: the secret server key.',
  'x-latch-super-secret-admin-key': 'Admin access: the super secret admin key.',
  'x-latch-admin-access-token': "Admin access: an owner's access token from the internal project.",
  'x-latch-access-token': "The signed-in user's access token.",
  'x-latch-refresh-token': 'The refresh token (refresh call).',
};

type Requirement = Record<string, string[]>;

const together = (...names: string[]): Requirement => Object.fromEntries(['x-latch-project-id', 'x-latch-access-type', ...names].map((n) => [n, []]));

/**
 * Which headers go together for each access level (OpenAPI: the schemes of one requirement object
 * are all required, the objects are alternatives). Client and server access may add the user's
 * access token; admin access is the admin key or an owner's admin access token.
 */
const BY_LEVEL: Record<AccessType, { key: Requirement[]; withUser: Requirement[] }> = {
  client: {
    key: [together('x-latch-publishable-client-key')],
    withUser: [together('x-latch-publishable-client-key', 'x-latch-access-token')],
  },
  server: { key: [together('x-latch-secret-server-key')], withUser: [together('x-latch-secret-server-key', 'x-latch-access-token')] },
  admin: { key: [together('x-latch-super-secret-admin-key'), together('x-latch-admin-access-token')], withUser: [] },
};

/**
 * The security requirements of an operation: none for a public one; for the refresh call (it does
 * not read the access token) the project credentials with the refresh token.
 */
export function securityRequirements(access: ProcedureAccess | null, path: string): Requirement[] {
  if (!access) return [];
  const refresh = path.endsWith('/refresh');
  return access.allowed.flatMap((level) => {
    const { key, withUser } = BY_LEVEL[level];
    if (refresh) return key.map((r) => ({ ...r, 'x-latch-refresh-token': [] }));
    if (!access.readsAccessToken) return key;
    // The calls that act for a user show the set with the access token first (the curl sample uses it).
    return access.actsForUser ? [...withUser, ...key] : [...key, ...withUser];
  });
}

export const SECURITY_DESCRIPTION = [
  '## Credentials',
  'Every call names its project and access level in headers; the lock of each operation lists the header sets it accepts (all headers of one set together).',
  '- **client** (browsers, apps): `x-latch-project-id`, `x-latch-access-type: client`, `x-latch-publishable-client-key`, and `x-latch-access-token` for the signed-in user.',
  '- **server** (your backend): `x-latch-project-id`, `x-latch-access-type: server`, `x-latch-secret-server-key`, optionally `x-latch-access-token` to act as a user.',
  "- **admin**: `x-latch-project-id`, `x-latch-access-type: admin`, and `x-latch-super-secret-admin-key` or an owner's `x-latch-admin-access-token`.",
  '',
  'Every `x-latch-*` request header is also accepted as `x-stack-*` (the names the Stack Auth SDKs send); a request uses one prefix throughout, chosen by its project-id or access-type header.',
  '',
  '## Errors',
  'A failure answers `{code, details, error}` with the code also in the `x-latch-known-error` and `x-stack-known-error` headers; each operation lists the catalogued codes it can answer, by status.',
].join('\n');
