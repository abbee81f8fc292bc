import type { z } from 'zod';
import type { UserTeamApiKeyRow } from '../../db/schema.js';
import type { teamApiKeySchema, userApiKeySchema } from '../../../contract/schemas/user-team-api-keys.js';

export type UserApiKey = z.infer<typeof userApiKeySchema>;
export type TeamApiKey = z.infer<typeof teamApiKeySchema>;

export function toApiKeyDto(row: UserTeamApiKeyRow): UserApiKey | TeamApiKey {
  const common = {
    id: row.id,
    description: row.description,
    is_public: row.is_public,
    created_at_millis: row.created_at.getTime(),
    expires_at_millis: row.expires_at?.getTime() ?? null,
    manually_revoked_at_millis: row.manually_revoked_at?.getTime() ?? null,
    value: { last_four: row.last_four },
  };
  return row.user_id ? { ...common, type: 'user', user_id: row.user_id } : { ...common, type: 'team', team_id: row.team_id! };
}
