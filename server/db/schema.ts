import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** A timestamptz: read as Date, written as Date or an SQL expression. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<unknown, string | undefined | null, string | null>;

export interface ProjectsTable {
  id: string;
  display_name: string;
  description: string | null;
  is_production_mode: Generated<boolean>;
  logo_url: string | null;
  full_logo_url: string | null;
  owner_team_id: string | null;
  config: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TenanciesTable {
  id: string;
  project_id: string;
  branch_id: string;
  created_at: Timestamp;
}

export interface ApiKeySetsTable {
  id: string;
  project_id: string;
  description: string;
  expires_at: Date | null;
  manually_revoked_at: Date | null;
  created_at: Timestamp;
  publishable_client_key_hash: string | null;
  publishable_client_key_last_four: string | null;
  secret_server_key_hash: string | null;
  secret_server_key_last_four: string | null;
  super_secret_admin_key_hash: string | null;
  super_secret_admin_key_last_four: string | null;
}

export interface UsersTable {
  tenancy_id: string;
  id: string;
  display_name: string | null;
  profile_image_url: string | null;
  primary_email: string | null;
  primary_email_verified: Generated<boolean>;
  auth_with_email: Generated<boolean>;
  password_hash: string | null;
  client_metadata: Json;
  client_read_only_metadata: Json;
  server_metadata: Json;
  is_anonymous: Generated<boolean>;
  requires_totp_mfa: Generated<boolean>;
  totp_secret_encrypted: string | null;
  otp_auth_enabled: Generated<boolean>;
  passkey_auth_enabled: Generated<boolean>;
  selected_team_id: string | null;
  signed_up_at: Timestamp;
  last_active_at: Timestamp;
}

export interface ContactChannelsTable {
  tenancy_id: string;
  id: string;
  user_id: string;
  type: Generated<string>;
  value: string;
  is_primary: Generated<boolean>;
  is_verified: Generated<boolean>;
  used_for_auth: Generated<boolean>;
  /** Whether the address was last proven by the account's holder, not by a bare code (migrations/0005_auth_claims.ts). */
  verified_by_holder: Generated<boolean>;
  created_at: Timestamp;
}

export interface SessionsTable {
  tenancy_id: string;
  id: string;
  user_id: string;
  refresh_token_hash: string;
  is_impersonation: Generated<boolean>;
  created_at: Timestamp;
  last_used_at: Timestamp;
  last_used_ip: string | null;
  expires_at: Date | null;
}

export interface TeamsTable {
  tenancy_id: string;
  id: string;
  display_name: string;
  profile_image_url: string | null;
  client_metadata: Json;
  client_read_only_metadata: Json;
  server_metadata: Json;
  created_at: Timestamp;
}

export interface TeamMembersTable {
  tenancy_id: string;
  team_id: string;
  user_id: string;
  display_name: string | null;
  profile_image_url: string | null;
  created_at: Timestamp;
}

/** One generation of signing seeds: every project's key pair of the generation derives from it. */
export interface SigningKeyGenerationsTable {
  generation: number;
  /** AES-256-GCM of the base64url seed, associated data `signing-generation:<n>`. */
  seed_encrypted: string;
  created_at: Timestamp;
}

export interface PermissionDefinitionsTable {
  tenancy_id: string;
  id: string;
  scope: 'team' | 'project';
  description: string | null;
  created_at: Timestamp;
}

export interface PermissionInclusionsTable {
  tenancy_id: string;
  parent_id: string;
  child_id: string;
}

export interface TeamPermissionGrantsTable {
  tenancy_id: string;
  team_id: string;
  user_id: string;
  permission_id: string;
  created_at: Timestamp;
}

export interface ProjectPermissionGrantsTable {
  tenancy_id: string;
  user_id: string;
  permission_id: string;
  created_at: Timestamp;
}

export interface TeamInvitationsTable {
  tenancy_id: string;
  id: string;
  team_id: string;
  recipient_email: string;
  expires_at: Date;
  created_at: Timestamp;
}

export interface UserTeamApiKeysTable {
  tenancy_id: string;
  id: string;
  secret_hash: string;
  last_four: string;
  is_public: Generated<boolean>;
  description: string;
  expires_at: Date | null;
  manually_revoked_at: Date | null;
  created_at: Timestamp;
  user_id: string | null;
  team_id: string | null;
  /** The user whose session created the key (team keys made by a client); NULL when the server made it. */
  created_by_user_id: Generated<string | null>;
}

export interface VerificationCodesTable {
  tenancy_id: string;
  id: string;
  purpose: string;
  code_hash: string;
  data: ColumnType<unknown, string, string>;
  expires_at: Date;
  used_at: Date | null;
  attempt_count: Generated<number>;
  created_at: Timestamp;
}

export interface EmailOutboxTable {
  id: string;
  tenancy_id: string | null;
  to_email: string;
  subject: string;
  html: string;
  text: string;
  state: Generated<'pending' | 'sent' | 'failed' | 'not-delivered'>;
  attempts: Generated<number>;
  error: string | null;
  sent_at: Date | null;
  created_at: Timestamp;
}

/**
 * The outbox of background work, one row per job of any kind (migration 0007, server/jobs/).
 * next_attempt_at is the due time, or the end of the lease while a worker holds the job.
 */
export interface JobsTable {
  id: string;
  kind: string;
  tenancy_id: string | null;
  payload: ColumnType<unknown, string, string>;
  status: Generated<'pending' | 'done' | 'dead'>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  leased_at: Date | null;
  last_error: string | null;
  created_at: Timestamp;
  finished_at: Date | null;
}

/** Payments (migration 0013): a customer's row is its lock; stripe_customer_id is stored, never searched. */
export interface PaymentCustomersTable {
  tenancy_id: string;
  customer_type: 'user' | 'team' | 'custom';
  customer_id: string;
  stripe_customer_id: string | null;
  created_at: Timestamp;
}

export interface CustomerProductsTable {
  tenancy_id: string;
  id: string;
  customer_type: 'user' | 'team' | 'custom';
  customer_id: string;
  product_id: string | null;
  product_snapshot: ColumnType<unknown, string, string>;
  quantity: number;
  source: 'api_grant' | 'test_mode' | 'purchase';
  started_at: Timestamp;
  ended_at: Date | null;
  created_at: Timestamp;
}

export interface ItemLedgerTable {
  tenancy_id: string;
  id: string;
  customer_type: 'user' | 'team' | 'custom';
  customer_id: string;
  item_id: string;
  /** bigint: read as a string by the drivers, converted in queries.ts. */
  delta: ColumnType<string | number, number, number>;
  expires_at: Date | null;
  description: string | null;
  source_kind: 'manual' | 'admin';
  created_at: Timestamp;
}

export interface PaymentSettingsTable {
  tenancy_id: string;
  stripe_secret_key_sealed: string;
  stripe_webhook_secret_sealed: string;
  updated_at: Timestamp;
}

export interface PurchasesTable {
  tenancy_id: string;
  id: string;
  customer_type: 'user' | 'team' | 'custom';
  customer_id: string;
  product_id: string | null;
  price_id: string | null;
  product_snapshot: ColumnType<unknown, string, string>;
  quantity: number;
  mode: 'test' | 'stripe';
  status: 'pending' | 'completed' | 'expired';
  currency: string | null;
  amount_minor: ColumnType<string | number | null, number | null, number | null>;
  stripe_checkout_session_id: string | null;
  checkout_url: string | null;
  customer_product_id: string | null;
  created_at: Timestamp;
  completed_at: Date | null;
}

export interface StripeEventsTable {
  tenancy_id: string;
  event_id: string;
  type: string;
  received_at: Timestamp;
}

/** Brute-force counters: one fixed window per (bucket, key) (migration 0004). */
export interface RateLimitsTable {
  bucket: string;
  key: string;
  count: number;
  window_ends_at: Timestamp;
}

export interface DB {
  projects: ProjectsTable;
  tenancies: TenanciesTable;
  api_key_sets: ApiKeySetsTable;
  users: UsersTable;
  contact_channels: ContactChannelsTable;
  sessions: SessionsTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  signing_key_generations: SigningKeyGenerationsTable;
  permission_definitions: PermissionDefinitionsTable;
  permission_inclusions: PermissionInclusionsTable;
  team_permission_grants: TeamPermissionGrantsTable;
  project_permission_grants: ProjectPermissionGrantsTable;
  team_invitations: TeamInvitationsTable;
  user_team_api_keys: UserTeamApiKeysTable;
  verification_codes: VerificationCodesTable;
  email_outbox: EmailOutboxTable;
  jobs: JobsTable;
  rate_limits: RateLimitsTable;
  payment_customers: PaymentCustomersTable;
  customer_products: CustomerProductsTable;
  item_ledger: ItemLedgerTable;
  payment_settings: PaymentSettingsTable;
  purchases: PurchasesTable;
  stripe_events: StripeEventsTable;
}

export type ProjectRow = Selectable<ProjectsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ApiKeySetRow = Selectable<ApiKeySetsTable>;
export type TeamRow = Selectable<TeamsTable>;
export type TeamMemberRow = Selectable<TeamMembersTable>;
export type PermissionDefinitionRow = Selectable<PermissionDefinitionsTable>;
export type TeamInvitationRow = Selectable<TeamInvitationsTable>;
export type UserTeamApiKeyRow = Selectable<UserTeamApiKeysTable>;
export type VerificationCodeRow = Selectable<VerificationCodesTable>;
