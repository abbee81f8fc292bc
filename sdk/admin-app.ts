/**
 * `AdminApp`: a project's owner side. It authenticates with the super secret admin key, or with
 * an admin access token: the access token of a signed-in owner of the internal project (what the
 * admin console uses). It can do everything a `ServerApp` can, plus read and change the project,
 * its configuration and its API keys.
 *
 * Its own features (`features/<area>.ts`, the `Admin…Feature` classes and the admin-only
 * areas) are composed below as in `client-app.ts`. Methods it overrides (the project's admin
 * view) stay in the class: a feature cannot replace a method of a lower level.
 */
import type { LatchQuery } from './cache.js';
import { defineQuery } from './cache.js';
import { type CallOptions, type Composed, clientCredentials, composeFeatures, envVar } from './core.js';
import { EmailContentFeature } from './features/email-content.js';
import { EmailsFeature } from './features/emails.js';
import { InternalApiKeysFeature } from './features/internal-api-keys.js';
import { MetricsFeature } from './features/metrics.js';
import { WebhooksFeature } from './features/webhooks.js';
import { AdminNotificationsFeature } from './features/notifications.js';
import { AdminPaymentsFeature } from './features/payments.js';
import { AdminPermissionsFeature } from './features/permissions.js';
import { type AdminProject, AdminProjectsFeature } from './features/projects.js';
import { LatchAssertionError } from './errors.js';
import { type ServerAppOptions, ServerApp } from './server-app.js';
import type { AccessLevel, Credentials } from './transport.js';

export type * from './features/email-content.js';
export type * from './features/emails.js';
export type * from './features/internal-api-keys.js';
export type * from './features/metrics.js';
export type * from './features/webhooks.js';
export type * from './features/permissions.js';
export type * from './features/projects.js';
export type * from './features/payments.js';

export interface AdminAppOptions extends Omit<ServerAppOptions, 'secretServerKey'> {
  /** The project's super secret admin key. Default: `LATCH_SUPER_SECRET_ADMIN_KEY`. */
  superSecretAdminKey?: string;
  /**
   * Instead of the admin key: the access token of an owner signed in to the internal project, or
   * a function returning a fresh one (e.g. `() => internalApp.getAccessToken()`).
   */
  adminAccessToken?: string | (() => string | null | Promise<string | null>);
}

/** The admin app's own features (`composeFeatures` below puts them on the class). */
const ADMIN_FEATURES = [
  AdminProjectsFeature,
  InternalApiKeysFeature,
  AdminPermissionsFeature,
  MetricsFeature,
  EmailsFeature,
  EmailContentFeature,
  WebhooksFeature,
  AdminPaymentsFeature,
  AdminNotificationsFeature,
] as const;

export interface AdminApp extends Composed<typeof ADMIN_FEATURES> {}

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

  protected override resolveCredentials(options: AdminAppOptions): Credentials {
    const superSecretAdminKey = options.superSecretAdminKey ?? (options.adminAccessToken ? undefined : envVar('LATCH_SUPER_SECRET_ADMIN_KEY'));
    if (!superSecretAdminKey && !options.adminAccessToken) {
      throw new Error(
        'No admin credentials: pass superSecretAdminKey or adminAccessToken to the AdminApp, or set the LATCH_SUPER_SECRET_ADMIN_KEY environment variable.',
      );
    }
    return { ...clientCredentials(options), superSecretAdminKey, adminAccessToken: options.adminAccessToken };
  }

  /** Owner calls go to the internal project, as the owner of the admin access token. */
  protected override ownerCallOptions(): CallOptions {
    const ownerToken = this.credentials.adminAccessToken;
    if (!ownerToken)
      throw new Error("Owner calls (listOwnedProjects, createProject, transferProject) need an owner's session: create the AdminApp with adminAccessToken.");
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
    return defineQuery(this.appKey('projects.adminCurrent'), async () => {
      const project = await this.call((context) => this.trpc.projects.adminCurrent.query({}, { context }));
      // Spec section 4: an admin app never works on a project other than the one it was made for.
      if (project.id !== this.projectId) throw new LatchAssertionError("The admin project id must match the app's project id.");
      return project;
    });
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
}

composeFeatures(AdminApp, ADMIN_FEATURES);
