import type { ColumnType, Generated, Insertable, RawBuilder, Selectable, Updateable } from 'kysely';

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
  /**
   * The connected OAuth accounts as the user object shows them, a copy kept by oauth/queries.ts on
   * every write to oauth_accounts (migration 0023); null when none. Written only there.
   */
  oauth_providers: ColumnType<{ id: string; type: string; provider_user_id: string }[] | null, never, RawBuilder<unknown>>;
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

/** TOTP enrolment in progress and the replay guard, one row per user (migration 0009). */
export interface MfaTotpTable {
  tenancy_id: string;
  user_id: string;
  pending_secret_encrypted: string | null;
  pending_expires_at: Date | null;
  last_step: number | null;
  updated_at: Generated<Date>;
}

/** Single-use recovery codes, stored as SHA-256 (migration 0009). */
export interface MfaRecoveryCodesTable {
  tenancy_id: string;
  user_id: string;
  id: string;
  code_hash: string;
  used_at: Date | null;
  created_at: Generated<Date>;
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
  stripe_subscription_id: Generated<string | null>;
  stripe_payment_intent_id: Generated<string | null>;
  refunded_at: Generated<Date | null>;
}

/** A Stripe subscription as last re-fetched (migration 0019). */
export interface StripeSubscriptionsTable {
  tenancy_id: string;
  stripe_subscription_id: string;
  purchase_id: string;
  customer_type: 'user' | 'team' | 'custom';
  customer_id: string;
  status: string;
  current_period_start: Date | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  ended_at: Date | null;
  updated_at: Timestamp;
}

/** The payments transaction log, one row per money or item movement (migration 0019). */
export interface PaymentTransactionsTable {
  tenancy_id: string;
  id: string;
  source_key: string;
  type: 'purchase' | 'renewal' | 'refund' | 'dispute' | 'payment_failed' | 'grant' | 'manual_change';
  customer_type: 'user' | 'team' | 'custom';
  customer_id: string;
  purchase_id: string | null;
  product_id: string | null;
  product_display_name: string | null;
  quantity: number | null;
  test_mode: boolean;
  currency: string | null;
  amount_minor: ColumnType<string | number | null, number | null, number | null>;
  items: ColumnType<unknown, string, string>;
  stripe_payment_intent_id: string | null;
  description: string | null;
  created_at: Date;
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

/** CLI login requests (migration 0011, server/domains/auth/cli.ts). */
export interface CliAuthAttemptsTable {
  tenancy_id: string;
  id: string;
  polling_code_hash: string;
  login_code_hash: string;
  state: Generated<'waiting' | 'approved' | 'denied' | 'used'>;
  approved_user_id: string | null;
  requester_ip: string | null;
  expires_at: Date;
  last_polled_at: Date | null;
  decided_at: Date | null;
  used_at: Date | null;
  created_at: Timestamp;
}
/** A user's WebAuthn credential (migrations/0010_passkeys.ts). */
export interface PasskeysTable {
  tenancy_id: string;
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: Generated<number>;
  transports: ColumnType<string[], string, string>;
  device_type: string;
  backed_up: Generated<boolean>;
  rp_id: string;
  name: string;
  created_at: Timestamp;
  last_used_at: Date | null;
}
export type PasskeyRow = Selectable<PasskeysTable>;
/** OAuth provider accounts, their sealed tokens, in-flight flows and outer codes (migration 0008). */
export interface OAuthAccountsTable {
  tenancy_id: string;
  id: string;
  user_id: string;
  provider_config_id: string;
  provider_account_id: string;
  email: string | null;
  allow_sign_in: boolean;
  allow_connected_accounts: boolean;
  created_at: Timestamp;
}

export interface OAuthTokensTable {
  tenancy_id: string;
  id: string;
  oauth_account_id: string;
  kind: 'access' | 'refresh';
  token_sealed: string;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  expires_at: Date | null;
  is_valid: Generated<boolean>;
  created_at: Timestamp;
}

export interface OAuthFlowsTable {
  tenancy_id: string;
  id: string;
  state_hash: string;
  cookie_hash: string;
  provider_config_id: string;
  sealed: string;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: Timestamp;
}

export interface OAuthCodesTable {
  tenancy_id: string;
  id: string;
  code_hash: string;
  redirect_uri: string;
  code_challenge: string;
  sealed: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Timestamp;
}

/** Data vault entries, sealed twice: by the SDK, then by the server's envelope (migration 0014). */
export interface DataVaultEntriesTable {
  tenancy_id: string;
  store_id: string;
  hashed_key: string;
  key_version: number;
  wrapped_data_key: string;
  value_sealed: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Workflow tokens (migration 0020): server access for one project's automations; only the token's hash is stored. */
export interface WorkflowTokensTable {
  tenancy_id: string;
  id: string;
  token_hash: string;
  description: Generated<string>;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}

/** One row per UTC day a user was active (migration 0020); written with the throttled last-active update. */
export interface UserDailyActivityTable {
  tenancy_id: string;
  day: ColumnType<string, string, never>;
  user_id: string;
}

/** Outbound webhook endpoints (migration 0015); event_types is a JSON array, or null for every event. */
export interface WebhookEndpointsTable {
  tenancy_id: string;
  id: string;
  url: string;
  description: Generated<string>;
  event_types: string | null;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Timestamp;
}

/** One event to announce, written with the change (migration 0015). */
export interface WebhookMessagesTable {
  tenancy_id: string;
  id: string;
  event_type: string;
  payload: string;
  created_at: Timestamp;
}

/** One message to one endpoint: the log the console shows; its job has the same id. */
export interface WebhookDeliveriesTable {
  tenancy_id: string;
  id: string;
  message_id: string;
  endpoint_id: string;
  state: Generated<'pending' | 'sent' | 'dead'>;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  last_response_snippet: string | null;
  created_at: Timestamp;
  sent_at: Date | null;
}

/** Owner-defined notification categories (migration 0018); the built-in ones are constants in code. */
export interface NotificationCategoriesTable {
  tenancy_id: string;
  id: string;
  name: string;
  /** The name lowercased: two categories may not differ only by case. */
  name_key: string;
  can_disable: boolean;
  default_enabled: boolean;
  created_at: Timestamp;
}

/** A user's choice per notification category (migration 0018); no row = the category's default. */
export interface NotificationPreferencesTable {
  tenancy_id: string;
  user_id: string;
  category_id: string;
  enabled: boolean;
  updated_at: Timestamp;
}

/** The messages of the console's AI drafting threads (migration 0018): a JSON message each. */
export interface AiChatMessagesTable {
  tenancy_id: string;
  thread_id: string;
  id: string;
  message: string;
  created_at: Timestamp;
}

/** Owner email themes (migration 0017); a row with a built-in theme's id is the project's edit of it. */
export interface EmailThemesTable {
  tenancy_id: string;
  id: string;
  display_name: string;
  tsx_source: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Owner email templates (migration 0017); `type` is the built-in email a row replaces, or null. */
export interface EmailTemplatesTable {
  tenancy_id: string;
  id: string;
  type: string | null;
  display_name: string;
  tsx_source: string;
  theme_mode: 'project' | 'none' | 'custom';
  theme_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One-off emails written in the console (migration 0017). */
export interface EmailDraftsTable {
  tenancy_id: string;
  id: string;
  display_name: string;
  tsx_source: string;
  theme_mode: 'project' | 'none' | 'custom';
  theme_id: string | null;
  sent_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** What send-email rendered for each recipient (migration 0017); html and text sealed, headers JSON. */
export interface EmailSentTable {
  tenancy_id: string;
  id: string;
  to: string | null;
  user_id: string | null;
  subject: Generated<string>;
  html: string | null;
  text: string | null;
  headers: string | null;
  sent_at: Date | null;
  error: string | null;
  draft_id: string | null;
  template_id: string | null;
  created_at: Timestamp;
}

/** send-email calls scheduled for later (migration 0022): listed as scheduled until their jobs start. */
export interface EmailScheduledSendsTable {
  tenancy_id: string;
  id: string;
  scheduled_at: Date;
  subject: string | null;
  draft_id: string | null;
  template_id: string | null;
  recipient_count: number;
  created_at: Timestamp;
  started_at: Date | null;
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
  mfa_totp: MfaTotpTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  cli_auth_attempts: CliAuthAttemptsTable;
  passkeys: PasskeysTable;
  oauth_accounts: OAuthAccountsTable;
  oauth_tokens: OAuthTokensTable;
  oauth_flows: OAuthFlowsTable;
  oauth_codes: OAuthCodesTable;
  data_vault_entries: DataVaultEntriesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  payment_customers: PaymentCustomersTable;
  customer_products: CustomerProductsTable;
  item_ledger: ItemLedgerTable;
  payment_settings: PaymentSettingsTable;
  purchases: PurchasesTable;
  stripe_events: StripeEventsTable;
  notification_categories: NotificationCategoriesTable;
  notification_preferences: NotificationPreferencesTable;
  ai_chat_messages: AiChatMessagesTable;
  email_themes: EmailThemesTable;
  email_templates: EmailTemplatesTable;
  email_drafts: EmailDraftsTable;
  email_sent: EmailSentTable;
  email_scheduled_sends: EmailScheduledSendsTable;
  stripe_subscriptions: StripeSubscriptionsTable;
  payment_transactions: PaymentTransactionsTable;
  workflow_tokens: WorkflowTokensTable;
  user_daily_activity: UserDailyActivityTable;
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
