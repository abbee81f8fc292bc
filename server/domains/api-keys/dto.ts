import type { z } from 'zod';
import type { ApiKeySetRow } from '../../db/schema.js';
import type { apiKeySetSchema } from '../../../contract/schemas/api-keys.js';

export type ApiKeySetDto = z.infer<typeof apiKeySetSchema>;

export function toApiKeySetDto(row: ApiKeySetRow): ApiKeySetDto {
  const four = (value: string | null) => (value === null ? null : { last_four: value });
  return {
    id: row.id,
    description: row.description,
    expires_at_millis: row.expires_at?.getTime() ?? null,
    manually_revoked_at_millis: row.manually_revoked_at?.getTime() ?? null,
    created_at_millis: row.created_at.getTime(),
    publishable_client_key: four(row.publishable_client_key_last_four),
    secret_server_key: four(row.secret_server_key_last_four),
    super_secret_admin_key: four(row.super_secret_admin_key_last_four),
    has_publishable_client_key: row.publishable_client_key_last_four !== null,
    has_secret_server_key: row.secret_server_key_last_four !== null,
    has_super_secret_admin_key: row.super_secret_admin_key_last_four !== null,
  };
}
