import type {
  ApiKeySetsTable,
  ContactChannelsTable,
  EmailOutboxTable,
  PasskeysTable,
  PermissionDefinitionsTable,
  ProjectsTable,
  SessionsTable,
  TeamInvitationsTable,
  TeamsTable,
  UserTeamApiKeysTable,
  UsersTable,
  VerificationCodesTable,
} from './schema.js';

/**
 * Explicit select lists for full-row reads (the house rule: no `selectAll()`, so a query names what
 * it reads and a column added by a migration is not read until someone lists it). Each list is
 * checked against its table type in both directions: a missing or unknown column fails the type check.
 */
function columns<T>(present: Record<keyof T & string, true>): ReadonlyArray<keyof T & string> {
  return Object.keys(present) as Array<keyof T & string>;
}

/** `alias.column` for each column, for a read through a join (`selectFrom('users as u')`). */
export function qualified<A extends string, C extends string>(alias: A, list: ReadonlyArray<C>): Array<`${A}.${C}`> {
  return list.map((column) => `${alias}.${column}` as `${A}.${C}`);
}

export const PROJECT_COLUMNS = columns<ProjectsTable>({
  id: true,
  display_name: true,
  description: true,
  is_production_mode: true,
  logo_url: true,
  full_logo_url: true,
  owner_team_id: true,
  config: true,
  created_at: true,
  updated_at: true,
});

export const API_KEY_SET_COLUMNS = columns<ApiKeySetsTable>({
  id: true,
  project_id: true,
  description: true,
  expires_at: true,
  manually_revoked_at: true,
  created_at: true,
  publishable_client_key_hash: true,
  publishable_client_key_last_four: true,
  secret_server_key_hash: true,
  secret_server_key_last_four: true,
  super_secret_admin_key_hash: true,
  super_secret_admin_key_last_four: true,
});

export const USER_COLUMNS = columns<UsersTable>({
  tenancy_id: true,
  id: true,
  display_name: true,
  profile_image_url: true,
  primary_email: true,
  primary_email_verified: true,
  auth_with_email: true,
  password_hash: true,
  client_metadata: true,
  client_read_only_metadata: true,
  server_metadata: true,
  is_anonymous: true,
  requires_totp_mfa: true,
  totp_secret_encrypted: true,
  otp_auth_enabled: true,
  passkey_auth_enabled: true,
  selected_team_id: true,
  signed_up_at: true,
  last_active_at: true,
  oauth_providers: true,
});

export const CONTACT_CHANNEL_COLUMNS = columns<ContactChannelsTable>({
  tenancy_id: true,
  id: true,
  user_id: true,
  type: true,
  value: true,
  is_primary: true,
  is_verified: true,
  used_for_auth: true,
  verified_by_holder: true,
  created_at: true,
});

export const SESSION_COLUMNS = columns<SessionsTable>({
  tenancy_id: true,
  id: true,
  user_id: true,
  refresh_token_hash: true,
  is_impersonation: true,
  created_at: true,
  last_used_at: true,
  last_used_ip: true,
  expires_at: true,
});

export const TEAM_COLUMNS = columns<TeamsTable>({
  tenancy_id: true,
  id: true,
  display_name: true,
  profile_image_url: true,
  client_metadata: true,
  client_read_only_metadata: true,
  server_metadata: true,
  created_at: true,
});

export const PERMISSION_DEFINITION_COLUMNS = columns<PermissionDefinitionsTable>({
  tenancy_id: true,
  id: true,
  scope: true,
  description: true,
  created_at: true,
});

export const TEAM_INVITATION_COLUMNS = columns<TeamInvitationsTable>({
  tenancy_id: true,
  id: true,
  team_id: true,
  recipient_email: true,
  expires_at: true,
  created_at: true,
});

export const USER_TEAM_API_KEY_COLUMNS = columns<UserTeamApiKeysTable>({
  tenancy_id: true,
  id: true,
  secret_hash: true,
  last_four: true,
  is_public: true,
  description: true,
  expires_at: true,
  manually_revoked_at: true,
  created_at: true,
  user_id: true,
  team_id: true,
  created_by_user_id: true,
});

export const VERIFICATION_CODE_COLUMNS = columns<VerificationCodesTable>({
  tenancy_id: true,
  id: true,
  purpose: true,
  code_hash: true,
  data: true,
  expires_at: true,
  used_at: true,
  attempt_count: true,
  created_at: true,
});

export const EMAIL_OUTBOX_COLUMNS = columns<EmailOutboxTable>({
  id: true,
  tenancy_id: true,
  to_email: true,
  subject: true,
  html: true,
  text: true,
  state: true,
  attempts: true,
  error: true,
  sent_at: true,
  created_at: true,
});

export const PASSKEY_COLUMNS = columns<PasskeysTable>({
  tenancy_id: true,
  id: true,
  user_id: true,
  credential_id: true,
  public_key: true,
  counter: true,
  transports: true,
  device_type: true,
  backed_up: true,
  rp_id: true,
  name: true,
  created_at: true,
  last_used_at: true,
});
