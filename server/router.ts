/**
 * Folders follow the API: a flow lives in the folder its REST path names.
 * - `/<resource>/*` → `domains/<resource>/` (router.ts, service.ts, queries.ts, dto.ts): `/users` →
 *   users/, `/team-invitations` → team-invitations/, `/contact-channels` → contact-channels/.
 * - `/auth/<way-in>/*` → one file per way in under `domains/auth/`: `/auth/password/*` →
 *   password.ts (reset codes: password-reset.ts), `/auth/otp/*` → magic-link.ts,
 *   `/auth/anonymous/*` → anonymous.ts; each ends in auth/sign-in.ts, the one sign-in seam.
 * - `/users/{user_id}/mfa/*` → `domains/mfa/` (the `mfa` namespace: a user's TOTP and recovery
 *   codes); `/auth/mfa/sign-in` is the way in of auth/mfa.ts.
 * - `/auth/sessions/*` → `domains/sessions/` (a resource of its own, the `sessions` namespace):
 *   refresh.ts holds the refresh grant for `/auth/sessions/current/refresh` and for
 *   `/auth/oauth/token` (whose form-body route is server/http/oauth-token.ts) and points to the
 *   expired-token rule (access/policy.ts, applied per procedure in trpc/procedures.ts).
 * - Routes that are not procedures (health, metrics, docs, the console, OAuth token and callbacks,
 *   webhooks) → `server/http/<name>.ts`, composed in app.ts.
 * A tRPC namespace keeps its public name (the SDK calls it) even where the folder is named by path.
 */
import { apiKeysRouter } from './domains/api-keys/router.js';
import { authRouter } from './domains/auth/router.js';
import { dataVaultRouter } from './domains/data-vault/router.js';
import { webhooksRouter } from './domains/webhooks/router.js';
import { workflowTokensRouter } from './domains/workflow-tokens/router.js';
import { contactChannelsRouter } from './domains/contact-channels/router.js';
import { featureSupportRouter } from './domains/feature-support/router.js';
import { emailsRouter } from './domains/emails/router.js';
import { emailContentRouter } from './domains/emails/content/router.js';
import { metricsRouter } from './domains/metrics/router.js';
import { mfaRouter } from './domains/mfa/router.js';
import { passkeysRouter } from './domains/passkeys/router.js';
import { paymentsRouter } from './domains/payments/router.js';
import { permissionsRouter } from './domains/permissions/router.js';
import { projectsRouter } from './domains/projects/router.js';
import { sessionsRouter } from './domains/sessions/router.js';
import { teamInvitationsRouter } from './domains/team-invitations/router.js';
import { teamsRouter } from './domains/teams/router.js';
import { userTeamApiKeysRouter } from './domains/user-team-api-keys/router.js';
import { usersRouter } from './domains/users/router.js';
import { oauthRouter } from './domains/oauth/router.js';
import { notificationsRouter } from './domains/notifications/router.js';
import { aiChatRouter } from './domains/ai-chat/router.js';
import { router } from './trpc/init.js';

/** Every domain router, merged. The SDK imports only `type AppRouter` from here. */
export const appRouter = router({
  auth: authRouter,
  sessions: sessionsRouter,
  users: usersRouter,
  projects: projectsRouter,
  apiKeys: apiKeysRouter,
  teams: teamsRouter,
  teamInvitations: teamInvitationsRouter,
  permissions: permissionsRouter,
  userTeamApiKeys: userTeamApiKeysRouter,
  payments: paymentsRouter,
  contactChannels: contactChannelsRouter,
  emails: emailsRouter,
  emailContent: emailContentRouter,
  metrics: metricsRouter,
  mfa: mfaRouter,
  passkeys: passkeysRouter,
  oauth: oauthRouter,
  dataVault: dataVaultRouter,
  webhooks: webhooksRouter,
  notifications: notificationsRouter,
  aiChat: aiChatRouter,
  workflowTokens: workflowTokensRouter,
  featureSupport: featureSupportRouter,
});

export type AppRouter = typeof appRouter;
