import type { z } from 'zod';
import type { UserRow } from '../../db/schema.js';
import type { AccessType } from '../../access/context.js';
import type { clientUserSchema, serverUserSchema } from '../../../contract/schemas/users.js';

export type ClientUser = z.infer<typeof clientUserSchema>;
export type ServerUser = z.infer<typeof serverUserSchema>;

type Json = ClientUser['client_metadata'];

/**
 * The user object, and the one place that decides which user fields each access level sees:
 * server_metadata and last_active_at only server-side; the password hash and TOTP secret never.
 * Its `oauth_providers` are the row's copy of the user's OAuth accounts (users.oauth_providers).
 */
export function toUserDto(row: UserRow, view: 'client'): ClientUser;
export function toUserDto(row: UserRow, view: 'server' | 'admin'): ServerUser;
export function toUserDto(row: UserRow, view: AccessType): ClientUser | ServerUser;
export function toUserDto(row: UserRow, view: AccessType): ClientUser | ServerUser {
  const client: ClientUser = {
    id: row.id,
    display_name: row.display_name,
    primary_email: row.primary_email,
    primary_email_verified: row.primary_email_verified,
    auth_with_email: row.auth_with_email,
    profile_image_url: row.profile_image_url,
    signed_up_at_millis: row.signed_up_at.getTime(),
    client_metadata: (row.client_metadata ?? null) as Json,
    client_read_only_metadata: (row.client_read_only_metadata ?? null) as Json,
    has_password: row.password_hash !== null,
    otp_auth_enabled: row.otp_auth_enabled,
    passkey_auth_enabled: row.passkey_auth_enabled,
    requires_totp_mfa: row.requires_totp_mfa,
    oauth_providers: row.oauth_providers ?? [],
    selected_team_id: row.selected_team_id,
    is_anonymous: row.is_anonymous,
  };
  if (view === 'client') return client;
  return { ...client, server_metadata: (row.server_metadata ?? null) as Json, last_active_at_millis: row.last_active_at.getTime() };
}
