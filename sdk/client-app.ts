/**
 * `ClientApp`: what a browser (or any end-user program) uses to sign in and manage the signed-in
 * user. `ServerApp` and `AdminApp` extend it, so everything here works for them too.
 *
 * The app is the core (`core.ts`: calls, session, cache) plus one feature per area
 * (`features/<area>.ts`), composed below: the interface lists the features' methods for the
 * type, `composeFeatures` puts them on the class. A new client feature adds its file, one line
 * in `CLIENT_FEATURES`, and one `export type *` line.
 */
import { AppCore, type Composed, composeFeatures } from './core.js';
import { AnonymousFeature } from './features/anonymous.js';
import { ApiKeysFeature } from './features/api-keys.js';
import { CliFeature } from './features/cli.js';
import { ContactChannelsFeature } from './features/contact-channels.js';
import { MagicLinkFeature } from './features/magic-link.js';
import { MfaFeature } from './features/mfa.js';
import { PasskeysFeature } from './features/passkeys.js';
import { NotificationCategoriesBase, NotificationsFeature } from './features/notifications.js';
import { OAuthFeature } from './features/oauth.js';
import { PasswordFeature } from './features/password.js';
import { FeatureSupportFeature } from './features/feature-support.js';
import { PaymentsFeature } from './features/payments.js';
import { PermissionsFeature } from './features/permissions.js';
import { ProjectsFeature } from './features/projects.js';
import { SessionsFeature } from './features/sessions.js';
import { TeamInvitationsFeature } from './features/team-invitations.js';
import { type ClientTeamViews, TeamsFeature } from './features/teams.js';
import { type ClientUser, CurrentUserFeature } from './features/users.js';

export type { CallOptions, ClientAppOptions, SignInResult } from './core.js';
export type { SendEmailError, VerificationCodeError } from './errors.js';
export type * from './features/anonymous.js';
export type * from './features/api-keys.js';
export type * from './features/cli.js';
export type * from './features/contact-channels.js';
export type * from './features/magic-link.js';
export type * from './features/mfa.js';
export type * from './features/passkeys.js';
export type * from './features/notifications.js';
export type * from './features/oauth.js';
export type * from './features/password.js';
export type * from './features/payments.js';
export type * from './features/permissions.js';
export type * from './features/projects.js';
export type * from './features/sessions.js';
export type * from './features/team-invitations.js';
export type * from './features/teams.js';
export type * from './features/users.js';

/**
 * The client app's features; `composeFeatures` below puts them on the class. Those whose types
 * depend on the app's views of users and teams come last and are named again in the interface
 * with its type parameters.
 */
const CLIENT_FEATURES = [
  PasswordFeature,
  AnonymousFeature,
  MagicLinkFeature,
  MfaFeature,
  SessionsFeature,
  ProjectsFeature,
  TeamInvitationsFeature,
  PermissionsFeature,
  ApiKeysFeature,
  CliFeature,
  PasskeysFeature,
  OAuthFeature,
  FeatureSupportFeature,
  PaymentsFeature,
  NotificationCategoriesBase,
  NotificationsFeature,
] as const;

// The type parameters give a `ServerApp` the server views from the same methods: `U` the user,
// `V` teams and member profiles.
export interface ClientApp<U extends ClientUser = ClientUser, V extends ClientTeamViews = ClientTeamViews>
  extends Composed<typeof CLIENT_FEATURES>, CurrentUserFeature<U>, TeamsFeature<U, V>, ContactChannelsFeature<U> {}

/**
 * The client app of a project: sign-up, sign-in and sign-out, the signed-in user and their
 * sessions, with tokens refreshed for you and reads cached.
 *
 * @example
 * import { ClientApp } from './sdk/index.js';
 * const app = new ClientApp({ projectId: 'c0ffee…', publishableClientKey: 'pck_…', baseUrl: 'https://auth.example.com' });
 * const result = await app.signInWithPassword({ email: 'ann@example.com', password: 'correct horse' });
 * if (result.status === 'error') console.log(result.error.message); // 'Wrong e-mail or password.'
 * const user = await app.getUser({ or: 'redirect' });
 */
export class ClientApp<U extends ClientUser = ClientUser, V extends ClientTeamViews = ClientTeamViews> extends AppCore {}

composeFeatures(ClientApp, [...CLIENT_FEATURES, CurrentUserFeature, TeamsFeature, ContactChannelsFeature]);
