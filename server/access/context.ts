/**
 * Who is calling: the types every layer shares once a request's credentials are resolved. Services
 * take an `AuthContext` (or just the `Tenancy`) from here, never from the tRPC layer.
 */
import type { AccessType } from '../../contract/access-type.js';
import type { ProjectConfig } from '../../contract/config/project-config.js';
import type { AccessTokenClaims } from '../crypto/jwt.js';

export { type AccessType, ACCESS_TYPES } from '../../contract/access-type.js';

export interface Tenancy {
  id: string;
  projectId: string;
  branchId: string;
}

export interface ProjectRecord {
  id: string;
  displayName: string;
  description: string | null;
  isProductionMode: boolean;
  logoUrl: string | null;
  fullLogoUrl: string | null;
  ownerTeamId: string | null;
  createdAt: Date;
  config: ProjectConfig;
}

/** Who is calling, resolved once per request from the x-latch-* headers. */
export interface AuthContext {
  type: AccessType;
  project: ProjectRecord;
  tenancy: Tenancy;
  /** The verified access token of the signed-in user, if one was sent. */
  user: AccessTokenClaims | null;
  /** When admin access came from an owner's internal-project token: that owner's user id. */
  adminUserId: string | null;
  /** Admin access narrowed to one area: a webhooks token (POST /webhooks/latch-token) is good for /internal/webhooks/* only. */
  scope?: 'webhooks';
  /**
   * Whether the request's client has disconnected (set for HTTP requests, trpc/context.ts): a
   * password hash still waiting for its turn is then dropped (crypto/passwords.ts).
   */
  clientGone?: () => boolean;
}

/** The credentials a request presents, read from its x-latch-* headers (trpc/context.ts). */
export interface LatchHeaders {
  projectId: string | null;
  branchId: string | null;
  accessType: string | null;
  accessToken: string | null;
  refreshToken: string | null;
  publishableClientKey: string | null;
  secretServerKey: string | null;
  superSecretAdminKey: string | null;
  adminAccessToken: string | null;
  allowAnonymousUser: boolean;
  /** x-latch-workflow-token: server access for one project's automation (access/resolve.ts); absent where no header is read. */
  workflowToken?: string | null;
  /** x-latch-auth, unparsed: checked when auth is resolved so a bad value is a catalogued error. */
  authHeader: string | null;
}
