import { apiKeysRouter } from './domains/api-keys/router.js';
import { authRouter } from './domains/auth/router.js';
import { contactChannelsRouter } from './domains/contact-channels/router.js';
import { emailsRouter } from './domains/emails/router.js';
import { metricsRouter } from './domains/metrics/router.js';
import { permissionsRouter } from './domains/permissions/router.js';
import { projectsRouter } from './domains/projects/router.js';
import { sessionsRouter } from './domains/sessions/router.js';
import { teamInvitationsRouter } from './domains/team-invitations/router.js';
import { teamsRouter } from './domains/teams/router.js';
import { userTeamApiKeysRouter } from './domains/user-team-api-keys/router.js';
import { usersRouter } from './domains/users/router.js';
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
  contactChannels: contactChannelsRouter,
  emails: emailsRouter,
  metrics: metricsRouter,
});

export type AppRouter = typeof appRouter;
