import { apiKeysRouter } from './domains/api-keys/router.js';
import { authRouter } from './domains/auth/router.js';
import { projectsRouter } from './domains/projects/router.js';
import { sessionsRouter } from './domains/sessions/router.js';
import { usersRouter } from './domains/users/router.js';
import { router } from './trpc/init.js';

/** Every domain router, merged. The SDK imports only `type AppRouter` from here. */
export const appRouter = router({
  auth: authRouter,
  sessions: sessionsRouter,
  users: usersRouter,
  projects: projectsRouter,
  apiKeys: apiKeysRouter,
});

export type AppRouter = typeof appRouter;
