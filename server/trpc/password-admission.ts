import { admitPasswordCall } from '../crypto/passwords.js';
import type { RequestContext } from './context.js';
import type { AuthContext } from '../access/context.js';
import { t } from './init.js';

/**
 * For procedures that hash or verify a password: admits the call into its project's share of the
 * password hashing (crypto/passwords.ts) before the procedure does anything else, and lets it out
 * when the procedure is done. A project with its maximum under way gets RATE_LIMITED at once, so
 * the excess of a flood costs neither a hash nor a database query, and other projects' calls do
 * not queue behind it; a call whose client disconnects while it waits for its turn is dropped
 * unhashed. Each call of a tRPC batch is admitted on its own. Goes after the access
 * middleware (it needs the project); `when` limits it to inputs that carry a password.
 */
export function admitPasswordCalls(when?: (rawInput: unknown) => boolean) {
  return t.middleware(async ({ ctx, next, getRawInput }) => {
    const auth = (ctx as RequestContext & { auth?: AuthContext }).auth;
    if (!auth || (when && !when(await getRawInput()))) return next();
    // A caller whose client has gone leaves at once when the project is full (fair-limiter.ts).
    const leave = admitPasswordCall(auth.tenancy.projectId, auth.clientGone);
    try {
      // A hash whose client has disconnected by its turn is dropped: the services hand their auth,
      // which knows (auth.clientGone), to the hashing (crypto/passwords.ts).
      return await next();
    } finally {
      leave();
    }
  });
}

/** Inputs that set a password (users created or updated by the server). */
export const setsPassword = (rawInput: unknown): boolean =>
  typeof rawInput === 'object' && rawInput !== null && typeof (rawInput as { password?: unknown }).password === 'string';
