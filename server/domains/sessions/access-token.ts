import type { Deps } from '../../deps.js';
import type { Tenancy } from '../../access/context.js';
import type { TokenUser } from './queries.js';

const ANONYMOUS_RESTRICTION = Object.freeze({ type: 'anonymous' as const });

/**
 * Signs an access token (ES256, 10 minutes by default) for a user's session. The token never
 * outlives its session: most routes check only the signature, so a short session (impersonation,
 * `expires_in_millis`) would otherwise keep working for up to a full access-token lifetime.
 */
export function mintAccessToken(deps: Deps, tenancy: Tenancy, user: TokenUser, sessionId: string, sessionExpiresAt: Date | null): Promise<string> {
  const untilSessionEnds = sessionExpiresAt ? Math.floor((sessionExpiresAt.getTime() - Date.now()) / 1000) : Infinity;
  return deps.keyring.sign(
    {
      sub: user.id,
      iss: `${deps.baseUrl()}/api/v1/projects/${tenancy.projectId}`,
      aud: user.is_anonymous ? `${tenancy.projectId}:anon` : tenancy.projectId,
      project_id: tenancy.projectId,
      branch_id: tenancy.branchId,
      refresh_token_id: sessionId,
      role: 'authenticated',
      name: user.display_name,
      email: user.primary_email,
      email_verified: user.primary_email_verified,
      selected_team_id: user.selected_team_id,
      is_anonymous: user.is_anonymous,
      signed_up_at: Math.floor(user.signed_up_at.getTime() / 1000),
      is_restricted: user.is_anonymous,
      restricted_reason: user.is_anonymous ? ANONYMOUS_RESTRICTION : null,
      requires_totp_mfa: user.requires_totp_mfa,
    },
    Math.max(0, Math.min(deps.env.accessTokenTtlSeconds, untilSessionEnds)),
  );
}
