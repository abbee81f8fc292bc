import { WEBHOOKS_TOKEN_AUDIENCE, WEBHOOKS_TOKEN_TTL_SECONDS } from '../../../contract/schemas/webhooks.js';
import type { AuthContext } from '../../access/context.js';
import { NO_USER_CLAIMS } from '../../crypto/jwt.js';
import type { Deps } from '../../deps.js';

/**
 * The webhook-service token (POST /webhooks/latch-token): what Stack gets from Svix for its
 * embedded portal, Latch mints itself. A JWT signed with the project's key (the keyring that signs
 * access tokens, so no new secret), audience `latch:webhooks`, one hour, naming who asked (the
 * owner, or `admin-key`). access/resolve.ts turns it into admin access narrowed to the webhooks
 * routes; its audience keeps it from passing as a user's access token. It is not revocable before
 * its hour is up: rotate the project's signing keys to cut every outstanding one.
 */
export async function mintWebhooksToken(deps: Deps, auth: AuthContext): Promise<{ token: string; expires_at_millis: number }> {
  const token = await deps.keyring.sign(
    {
      sub: auth.adminUserId ?? 'admin-key',
      iss: `${deps.baseUrl()}/api/v1/projects/${auth.project.id}`,
      aud: WEBHOOKS_TOKEN_AUDIENCE,
      project_id: auth.project.id,
      branch_id: auth.tenancy.branchId,
      refresh_token_id: '',
      ...NO_USER_CLAIMS,
    },
    WEBHOOKS_TOKEN_TTL_SECONDS,
  );
  return { token, expires_at_millis: Date.now() + WEBHOOKS_TOKEN_TTL_SECONDS * 1000 };
}
