/**
 * `ServerApp`: code you trust (your backend) with the project's secret server key. It can do
 * everything a `ClientApp` can (with server views of users), and manage any user of the project.
 * Never ship the secret server key to a browser.
 *
 * Its own features (`features/<area>.ts`, the `Server…Feature` classes) are composed below as in
 * `client-app.ts`.
 */
import { ClientApp } from './client-app.js';
import { type ClientAppOptions, type Composed, composeFeatures, envVar } from './core.js';
import { ServerApiKeysFeature } from './features/api-keys.js';
import { ServerOAuthFeature } from './features/oauth.js';
import { ServerNotificationsFeature } from './features/notifications.js';
import { ServerDataVaultFeature } from './features/data-vault.js';
import { ServerPaymentsFeature } from './features/payments.js';
import { ServerPermissionsFeature } from './features/permissions.js';
import { ServerSessionsFeature } from './features/sessions.js';
import { type ServerTeamViews, ServerTeamsFeature } from './features/teams.js';
import { type ServerUser, ServerUsersFeature } from './features/users.js';
import type { AccessLevel, Credentials } from './transport.js';

export type * from './features/api-keys.js';
export type * from './features/data-vault.js';
export type * from './features/payments.js';
export type * from './features/permissions.js';
export type * from './features/sessions.js';
export type * from './features/teams.js';
export type * from './features/users.js';

export interface ServerAppOptions extends ClientAppOptions {
  /** The project's secret server key. Default: the `LATCH_SECRET_SERVER_KEY` environment variable. */
  secretServerKey?: string;
}

/** The server app's own features (`composeFeatures` below puts them on the class). */
const SERVER_FEATURES = [
  ServerUsersFeature,
  ServerSessionsFeature,
  ServerTeamsFeature,
  ServerPermissionsFeature,
  ServerApiKeysFeature,
  ServerOAuthFeature,
  ServerDataVaultFeature,
  ServerPaymentsFeature,
  ServerNotificationsFeature,
] as const;

export interface ServerApp extends Composed<typeof SERVER_FEATURES> {}

/**
 * The server app of a project: the client app's calls with server access, plus user management.
 * Its token store defaults to none: pass `tokenStore` to act for a session, or
 * `getUser({ tokenStore: { accessToken, refreshToken } })` to read the user of a request.
 *
 * @example
 * import { ServerApp } from './sdk/index.js';
 * const server = new ServerApp({ projectId: 'c0ffee…', secretServerKey: process.env.LATCH_SECRET_SERVER_KEY });
 * const { items } = await server.listUsers({ query: 'ann', limit: 20 });
 * const user = await server.getUser({ tokenStore: { accessToken: req.headers['x-latch-access-token'] } });
 */
export class ServerApp extends ClientApp<ServerUser, ServerTeamViews> {
  constructor(options: ServerAppOptions = {}) {
    super(options);
  }

  protected override accessLevel(): AccessLevel {
    return 'server';
  }

  protected override resolveCredentials(options: ServerAppOptions): Credentials {
    const secretServerKey = options.secretServerKey ?? envVar('LATCH_SECRET_SERVER_KEY');
    if (!secretServerKey)
      throw new Error('No secret server key: pass secretServerKey to the ServerApp, or set the LATCH_SECRET_SERVER_KEY environment variable.');
    return { ...super.resolveCredentials(options), secretServerKey };
  }
}

composeFeatures(ServerApp, SERVER_FEATURES);
