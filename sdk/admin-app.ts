/**
 * `AdminApp`: a project's owner side. It authenticates with the super secret admin key, or with
 * an admin access token: the access token of a signed-in owner of the internal project (what the
 * admin console uses). It can do everything a `ServerApp` can, plus read and change the project,
 * its configuration and its API keys.
 */
import type { LatchQuery } from './cache.js';
import { defineQuery } from './cache.js';
import { KnownErrors } from './errors.js';
import { type AdminProject, type CallOptions, clientCredentials, envVar } from './client-app.js';
import { type PermissionDefinition, type ServerAppOptions, ServerApp } from './server-app.js';
import type { TokenStoreInit } from './tokens.js';
import type { AccessLevel, Credentials, RouterInputs, RouterOutputs } from './transport.js';

export type ProjectUpdateInput = RouterInputs['projects']['updateCurrent'];
/** A set of project keys (only their last four characters). */
export type InternalApiKey = RouterOutputs['apiKeys']['get'];
/** A new set of project keys: the full keys, shown only this once. */
export type CreatedInternalApiKey = RouterOutputs['apiKeys']['create'];
export type InternalApiKeyCreateInput = RouterInputs['apiKeys']['create'];
export type InternalApiKeyUpdateInput = Omit<RouterInputs['apiKeys']['update'], 'api_key_id'>;
/** A new custom permission: its id (lowercase letters, digits, `:` and `_`), description and the permissions it contains. */
export type PermissionDefinitionCreateInput = RouterInputs['permissions']['createTeamDefinition'];
/** A change of a custom permission: a new `id` (grants follow), description, or contained permissions. */
export type PermissionDefinitionUpdateInput = Omit<RouterInputs['permissions']['updateTeamDefinition'], 'permission_id'>;
/** An email of the project's outbox, as listed (`state`: pending, sent, failed or not-delivered). */
export type SentEmail = RouterOutputs['emails']['list']['items'][number];
/** A page of sent emails, newest first: `items` and `pagination.next_cursor` (null on the last page). */
export type SentEmailList = RouterOutputs['emails']['list'];
/** One email with its HTML and plain text. */
export type SentEmailDetail = RouterOutputs['emails']['get'];
/** An email server configuration to try (`shared`, or `standard` with host, port, credentials and sender). */
export type EmailConfig = RouterInputs['emails']['sendTestEmail']['email_config'];
/** What a test email did: `success`, or the SMTP server's `error_message`. */
export type SendTestEmailResult = RouterOutputs['emails']['sendTestEmail'];

/** The project's overview numbers: totals, active users, sign-ups and last activity per day (30 days), users by auth method. */
export type ProjectMetrics = RouterOutputs['metrics']['get'];

/** The effective project configuration (the `config_string` of the wire, parsed). */
export type ProjectConfig = Record<string, unknown>;

export interface AdminAppOptions extends Omit<ServerAppOptions, 'secretServerKey'> {
  /** The project's super secret admin key. Default: `LATCH_SUPER_SECRET_ADMIN_KEY`. */
  superSecretAdminKey?: string;
  /**
   * Instead of the admin key: the access token of an owner signed in to the internal project, or
   * a function returning a fresh one (e.g. `() => internalApp.getAccessToken()`).
   */
  adminAccessToken?: string | (() => string | null | Promise<string | null>);
}

function parseConfig(configString: string): ProjectConfig {
  return JSON.parse(configString) as ProjectConfig;
}

/**
 * The admin app of a project. Its token store defaults to none: admin apps act on the project,
 * not as a user (an "owned app").
 *
 * @example
 * import { AdminApp } from './sdk/index.js';
 * const admin = new AdminApp({ projectId: 'c0ffee…', superSecretAdminKey: process.env.LATCH_SUPER_SECRET_ADMIN_KEY });
 * await admin.updateProject({ config: { sign_up_enabled: false } });
 * const config = await admin.overrideConfig({ anonymous_enabled: true });
 */
export class AdminApp extends ServerApp {
  constructor(options: AdminAppOptions = {}) {
    super(options);
  }

  protected override accessLevel(): AccessLevel {
    return 'admin';
  }

  protected override defaultTokenStore(): TokenStoreInit {
    return null;
  }

  protected override resolveCredentials(options: AdminAppOptions): Credentials {
    const superSecretAdminKey = options.superSecretAdminKey ?? (options.adminAccessToken ? undefined : envVar('LATCH_SUPER_SECRET_ADMIN_KEY'));
    if (!superSecretAdminKey && !options.adminAccessToken) {
      throw new Error('No admin credentials: pass superSecretAdminKey or adminAccessToken to the AdminApp, or set the LATCH_SUPER_SECRET_ADMIN_KEY environment variable.');
    }
    return { ...clientCredentials(options), superSecretAdminKey, adminAccessToken: options.adminAccessToken };
  }

  /** Owner calls go to the internal project, as the owner of the admin access token. */
  protected override ownerCallOptions(): CallOptions {
    const ownerToken = this.credentials.adminAccessToken;
    if (!ownerToken) throw new Error("Owner calls (listOwnedProjects, createProject, transferProject) need an owner's session: create the AdminApp with adminAccessToken.");
    return { access: 'client', projectId: 'internal', accessToken: ownerToken };
  }

  // ─── The project ─────────────────────────────────────────────────────────────────────────────

  /**
   * The project, admin view, as a cached query.
   *
   * @example
   * admin.subscribe(() => admin.projectQuery(), (state) => console.log(state.data?.config));
   */
  override projectQuery(): LatchQuery<AdminProject> {
    return defineQuery(this.appKey('projects.adminCurrent'), () => this.call((context) => this.trpc.projects.adminCurrent.query({}, { context })));
  }

  /**
   * The project with its full configuration and production-mode problems.
   *
   * @example
   * const project = await admin.getProject();
   * console.log(project.production_mode_problems);
   */
  override async getProject(): Promise<AdminProject> {
    return this.queryClient.fetchQuery(this.projectQuery());
  }

  /**
   * Updates the project and its configuration (only the keys given change).
   *
   * @example
   * await admin.updateProject({ display_name: 'Shop', config: { client_user_deletion_enabled: true } });
   */
  async updateProject(patch: ProjectUpdateInput): Promise<AdminProject> {
    const project = await this.call((context) => this.trpc.projects.updateCurrent.mutate(patch, { context }));
    this.invalidate(['projects.']);
    return project;
  }

  /**
   * Deletes the project and all of its data.
   *
   * @example
   * await admin.deleteProject();
   */
  async deleteProject(): Promise<void> {
    await this.call((context) => this.trpc.projects.deleteCurrent.mutate({}, { context }));
    this.queryClient.clear();
  }

  // ─── Configuration ───────────────────────────────────────────────────────────────────────────

  /**
   * The effective configuration as a cached query.
   *
   * @example
   * admin.subscribe(() => admin.configQuery(), (state) => console.log(state.data));
   */
  configQuery(): LatchQuery<ProjectConfig> {
    return defineQuery(this.appKey('projects.getConfig'), async () =>
      parseConfig((await this.call((context) => this.trpc.projects.getConfig.query({}, { context }))).config_string),
    );
  }

  /**
   * The effective project configuration.
   *
   * @example
   * const config = await admin.getConfig();
   */
  async getConfig(): Promise<ProjectConfig> {
    return this.queryClient.fetchQuery(this.configQuery());
  }

  /**
   * Overrides configuration keys (dotted keys set nested values) and returns the new effective
   * configuration.
   *
   * @example
   * await admin.overrideConfig({ sign_up_enabled: false, 'email_config.type': 'shared' });
   */
  async overrideConfig(override: ProjectConfig): Promise<ProjectConfig> {
    const result = await this.call((context) => this.trpc.projects.overrideConfig.mutate({ config_override_string: JSON.stringify(override) }, { context }));
    this.invalidate(['projects.']);
    return parseConfig(result.config_string);
  }

  // ─── Internal API keys (the project's key sets) ──────────────────────────────────────────────

  /**
   * The project's key sets as a cached query.
   *
   * @example
   * admin.subscribe(() => admin.internalApiKeysQuery(), (state) => console.log(state.data));
   */
  internalApiKeysQuery(): LatchQuery<InternalApiKey[]> {
    return defineQuery(this.appKey('apiKeys.list'), async () => (await this.call((context) => this.trpc.apiKeys.list.query({}, { context }))).items);
  }

  /**
   * The project's key sets (last four characters of each key only).
   *
   * @example
   * const keys = await admin.listInternalApiKeys();
   */
  async listInternalApiKeys(): Promise<InternalApiKey[]> {
    return this.queryClient.fetchQuery(this.internalApiKeysQuery());
  }

  /**
   * One key set.
   *
   * @example
   * const key = await admin.getInternalApiKey(id);
   */
  async getInternalApiKey(apiKeyId: string): Promise<InternalApiKey> {
    return this.queryClient.fetchQuery(
      defineQuery(this.appKey('apiKeys.get', { api_key_id: apiKeyId }), () => this.call((context) => this.trpc.apiKeys.get.query({ api_key_id: apiKeyId }, { context }))),
    );
  }

  /**
   * Creates a key set; the full keys are in this response only.
   *
   * @example
   * const keys = await admin.createInternalApiKey({ description: 'production', has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: false });
   * console.log(keys.secret_server_key);
   */
  async createInternalApiKey(input: InternalApiKeyCreateInput): Promise<CreatedInternalApiKey> {
    const created = await this.call((context) => this.trpc.apiKeys.create.mutate(input, { context }));
    this.invalidate(['apiKeys.']);
    return created;
  }

  /**
   * Changes a key set's description, or revokes it with `revoked: true`.
   *
   * @example
   * await admin.updateInternalApiKey(id, { description: 'old laptop' });
   */
  async updateInternalApiKey(apiKeyId: string, patch: InternalApiKeyUpdateInput): Promise<InternalApiKey> {
    const updated = await this.call((context) => this.trpc.apiKeys.update.mutate({ ...patch, api_key_id: apiKeyId }, { context }));
    this.invalidate(['apiKeys.']);
    return updated;
  }

  /**
   * Revokes a key set: its keys stop working at once.
   *
   * @example
   * await admin.revokeInternalApiKey(id);
   */
  async revokeInternalApiKey(apiKeyId: string): Promise<InternalApiKey> {
    return this.updateInternalApiKey(apiKeyId, { revoked: true });
  }

  /**
   * Deletes a key set.
   *
   * @example
   * await admin.deleteInternalApiKey(id);
   */
  async deleteInternalApiKey(apiKeyId: string): Promise<void> {
    await this.call((context) => this.trpc.apiKeys.delete.mutate({ api_key_id: apiKeyId }, { context }));
    this.invalidate(['apiKeys.']);
  }

  // ─── Permission definitions ──────────────────────────────────────────────────────────────────

  /**
   * Defines a custom team permission, optionally containing others (system ones included): a
   * member granted it holds those too. Throws PERMISSION_ID_ALREADY_EXISTS, or
   * CONTAINED_PERMISSION_NOT_FOUND for a contained id not defined in the team scope.
   *
   * @example
   * await admin.createTeamPermissionDefinition({ id: 'docs:read' });
   * await admin.createTeamPermissionDefinition({ id: 'editor', description: 'Edits docs', contained_permission_ids: ['docs:read', '$read_members'] });
   */
  async createTeamPermissionDefinition(input: PermissionDefinitionCreateInput): Promise<PermissionDefinition> {
    const created = await this.call((context) => this.trpc.permissions.createTeamDefinition.mutate(input, { context }));
    this.invalidate(['permissions.']);
    return created;
  }

  /**
   * Changes a custom team permission: renaming it keeps its grants and the permissions that
   * contain it; a change of contained permissions that would make a cycle is refused.
   *
   * @example
   * await admin.updateTeamPermissionDefinition('editor', { contained_permission_ids: ['docs:read', 'docs:write'] });
   */
  async updateTeamPermissionDefinition(permissionId: string, patch: PermissionDefinitionUpdateInput): Promise<PermissionDefinition> {
    const updated = await this.call((context) => this.trpc.permissions.updateTeamDefinition.mutate({ ...patch, permission_id: permissionId }, { context }));
    this.invalidate(['permissions.']);
    return updated;
  }

  /**
   * Deletes a custom team permission with its grants (system permissions cannot be deleted).
   *
   * @example
   * await admin.deleteTeamPermissionDefinition('editor');
   */
  async deleteTeamPermissionDefinition(permissionId: string): Promise<void> {
    await this.call((context) => this.trpc.permissions.deleteTeamDefinition.mutate({ permission_id: permissionId }, { context }));
    this.invalidate(['permissions.']);
  }

  /**
   * Defines a project permission, optionally containing other project permissions.
   *
   * @example
   * await admin.createProjectPermissionDefinition({ id: 'reports:export', description: 'Export reports' });
   */
  async createProjectPermissionDefinition(input: PermissionDefinitionCreateInput): Promise<PermissionDefinition> {
    const created = await this.call((context) => this.trpc.permissions.createProjectDefinition.mutate(input, { context }));
    this.invalidate(['permissions.']);
    return created;
  }

  /**
   * Changes a project permission (rename, description, contained permissions).
   *
   * @example
   * await admin.updateProjectPermissionDefinition('reports:export', { description: 'Export reports as CSV' });
   */
  async updateProjectPermissionDefinition(permissionId: string, patch: PermissionDefinitionUpdateInput): Promise<PermissionDefinition> {
    const updated = await this.call((context) => this.trpc.permissions.updateProjectDefinition.mutate({ ...patch, permission_id: permissionId }, { context }));
    this.invalidate(['permissions.']);
    return updated;
  }

  /**
   * Deletes a project permission with its grants.
   *
   * @example
   * await admin.deleteProjectPermissionDefinition('reports:export');
   */
  async deleteProjectPermissionDefinition(permissionId: string): Promise<void> {
    await this.call((context) => this.trpc.permissions.deleteProjectDefinition.mutate({ permission_id: permissionId }, { context }));
    this.invalidate(['permissions.']);
  }

  // ─── Metrics ─────────────────────────────────────────────────────────────────────────────────

  /**
   * The project's overview numbers as a cached query (anonymous users counted only when asked).
   *
   * @example
   * admin.subscribe(() => admin.metricsQuery(), (state) => console.log(state.data?.total_users));
   */
  metricsQuery(options: { includeAnonymous?: boolean } = {}): LatchQuery<ProjectMetrics> {
    // A query-string boolean on REST, so a string on tRPC too (z.stringbool).
    const input = { include_anonymous: options.includeAnonymous ? 'true' : 'false' };
    return defineQuery(this.appKey('metrics.get', input), () => this.call((context) => this.trpc.metrics.get.query(input, { context })));
  }

  /**
   * Totals, active users (last day, 7 and 30 days), sign-ups and last activity per day for the
   * last 30 days, and users by auth method.
   *
   * @example
   * const metrics = await admin.getMetrics({ includeAnonymous: true });
   * console.log(metrics.sign_ups_per_day.at(-1)?.count);
   */
  async getMetrics(options: { includeAnonymous?: boolean } = {}): Promise<ProjectMetrics> {
    return this.queryClient.fetchQuery(this.metricsQuery(options));
  }

  // ─── Emails ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A page of the project's emails (newest first) as a cached query.
   *
   * @example
   * admin.subscribe(() => admin.sentEmailsQuery(), (state) => console.log(state.data?.items));
   */
  sentEmailsQuery(options: { cursor?: string; limit?: number } = {}): LatchQuery<SentEmailList> {
    const input = { ...(options.cursor === undefined ? {} : { cursor: options.cursor }), ...(options.limit === undefined ? {} : { limit: options.limit }) };
    return defineQuery(this.appKey('emails.list', input), () => this.call((context) => this.trpc.emails.list.query(input, { context })));
  }

  /**
   * The project's emails, newest first, with their delivery state and last error (without an
   * SMTP server they stay `not-delivered`: the local inbox). Cursor-paginated.
   *
   * @example
   * let page = await admin.listSentEmails();
   * while (page.pagination.next_cursor) page = await admin.listSentEmails({ cursor: page.pagination.next_cursor });
   */
  async listSentEmails(options: { cursor?: string; limit?: number } = {}): Promise<SentEmailList> {
    return this.queryClient.fetchQuery(this.sentEmailsQuery(options));
  }

  /**
   * One email with its HTML and text, or null when the project has no such email.
   *
   * @example
   * const email = await admin.getSentEmail(id);
   * console.log(email?.text);
   */
  async getSentEmail(emailId: string): Promise<SentEmailDetail | null> {
    const input = { email_id: emailId };
    return this.queryClient.fetchQuery(
      defineQuery(this.appKey('emails.get', input), async (): Promise<SentEmailDetail | null> => {
        try {
          return await this.call((context) => this.trpc.emails.get.query(input, { context }));
        } catch (error) {
          if (error instanceof KnownErrors.SentEmailNotFound) return null;
          throw error;
        }
      }),
    );
  }

  /**
   * Tries an email server configuration: sends one email now and reports what the SMTP server
   * said (`success: false` with its `error_message`), without saving the configuration.
   *
   * @example
   * const test = await admin.sendTestEmail({
   *   recipientEmail: 'me@example.com',
   *   emailConfig: { type: 'standard', host: 'smtp.example.com', port: 587, username: 'apikey', password: '…', sender_name: 'Shop', sender_email: 'noreply@example.com' },
   * });
   * if (!test.success) showError(test.error_message);
   */
  async sendTestEmail(input: { recipientEmail: string; emailConfig: EmailConfig }): Promise<SendTestEmailResult> {
    const body = { recipient_email: input.recipientEmail, email_config: input.emailConfig };
    const result = await this.call((context) => this.trpc.emails.sendTestEmail.mutate(body, { context }));
    this.invalidate(['emails.']);
    return result;
  }

  /**
   * Emails someone an invitation to sign in, linking to `callbackUrl` (default: the `urls.signIn`
   * page), which must be a trusted domain of the project.
   *
   * @example
   * await admin.sendSignInInvitation({ email: 'bob@example.com', callbackUrl: 'https://app.example.com/handler/sign-in' });
   */
  async sendSignInInvitation(input: { email: string; callbackUrl?: string }): Promise<void> {
    const body = { email: input.email, callback_url: this.signInCallbackUrl(input.callbackUrl, 'sendSignInInvitation') };
    await this.call((context) => this.trpc.emails.sendSignInInvitation.mutate(body, { context }));
    this.invalidate(['emails.']);
  }
}
