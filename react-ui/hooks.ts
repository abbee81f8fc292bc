import { useSuspenseQuery } from '@tanstack/react-query';
import { use, useContext } from 'react';
import { type ClientApp, type ClientProject, type ClientUser, type GetUserOptions, UserNotSignedInError } from '../sdk/index.js';
import { LatchContext, type LatchContextValue } from './context.js';
import { isLeavingPage } from './navigation.js';
import { currentRelativeUrl, mfaAttemptCodeKey, withReturnTo } from './urls.js';

/** The hint thrown when code destructures the user out of `useUser()` (spec, "Client-side messages"). */
export const DESTRUCTURE_USER_HINT =
  'useUser() returns the user object itself, not an object containing it: write `const user = useUser()` instead of `const { user } = useUser()`.';

/** The provider's context; throws a clear error outside `<LatchProvider>`. */
export function useLatchContext(): LatchContextValue {
  const context = useContext(LatchContext);
  if (!context) throw new Error('This Latch hook or component must be used inside <LatchProvider app={app}>.');
  return context;
}

/**
 * What every way in does when the first factor was right and the user has MFA on
 * (MultiFactorAuthenticationRequired, spec section 2): keep the attempt code in session storage for
 * the mfa route, then go there, keeping where the user was going (`returnTo`). Resolves to the mfa
 * URL and whether the page navigated. Internal to the kit (the sign-in forms and the callbacks).
 */
export function useContinueToMfa(): (attemptCode: string, returnTo: string | null) => Promise<{ to: string; navigated: boolean }> {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  return async (attemptCode, returnTo) => {
    sessionStorage.setItem(mfaAttemptCodeKey(app.projectId), attemptCode);
    const to = withReturnTo(urls.mfa, returnTo);
    return { to, navigated: await navigate(to) };
  };
}

/**
 * The Latch app given to `<LatchProvider>`: call its methods (sign-in, teams, API keys…).
 *
 * @example
 * const app = useApp();
 * await app.updateUser({ display_name: 'Ann' });
 */
export function useApp(): ClientApp {
  return useLatchContext().app;
}

/**
 * The current project's public settings (which sign-in methods are enabled…). Suspends while loading.
 *
 * @example
 * const project = useProject();
 * if (project.config.magic_link_enabled) …
 */
export function useProject(): ClientProject {
  const { app } = useLatchContext();
  return useSuspenseQuery(app.projectQuery()).data;
}

// React's `use` needs the same promise on every render until it settles: one per app.
const NEVER = new Promise<never>(() => {});
const anonymousSignUps = new WeakMap<ClientApp, Promise<ClientUser>>();
const redirecting = new WeakMap<ClientApp, string>();

/**
 * Wraps a user so that `const { user } = useUser()` throws the spec's hint instead of silently
 * giving undefined. Cached per user object, so the returned value keeps its identity between
 * renders (what `useMemo` and effect dependencies expect).
 */
const guarded = new WeakMap<object, object>();
function guardUser<U extends object>(user: U): U {
  let proxy = guarded.get(user);
  if (!proxy) {
    proxy = new Proxy(user, {
      get(target, property, receiver) {
        if (property === 'user' && !(property in target)) throw new Error(DESTRUCTURE_USER_HINT);
        return Reflect.get(target, property, receiver);
      },
    });
    guarded.set(user, proxy);
  }
  return proxy as U;
}

/**
 * The signed-in user, kept live: any change through the SDK (a new display name, a selected team,
 * sign-out in another component) renders again with the new value. Suspends while the user
 * loads (wrap in `<Suspense>`). Anonymous users count as signed out unless `or` is `'anonymous'`.
 * When nobody is signed in, `or` picks what happens, as in `app.getUser`:
 * - `'return-null'` (default): returns null;
 * - `'throw'`: throws 'User is not signed in but getUser was called with { or: throw }' (to your error boundary);
 * - `'redirect'`: goes to the sign-in page, carrying this page in `after_auth_return_to`;
 * - `'anonymous'`: signs up an anonymous user (one at a time) and returns it.
 *
 * @example
 * function Greeting() {
 *   const user = useUser({ or: 'redirect' });
 *   return <p>Hello, {user.display_name ?? user.primary_email}</p>;
 * }
 */
export function useUser(options: Omit<GetUserOptions, 'tokenStore'> & { or: 'redirect' | 'throw' | 'anonymous' }): ClientUser;
export function useUser(options?: Omit<GetUserOptions, 'tokenStore'>): ClientUser | null;
export function useUser(options: Omit<GetUserOptions, 'tokenStore'> = {}): ClientUser | null {
  const { app, urls, navigate, reportError } = useLatchContext();
  const or = options.or ?? 'return-null';
  const user = useSuspenseQuery(app.currentUserQuery()).data;
  if (user && (!user.is_anonymous || or === 'anonymous')) return guardUser(user);
  switch (or) {
    case 'throw':
      throw new UserNotSignedInError();
    case 'redirect': {
      const here = typeof window === 'undefined' ? null : currentRelativeUrl(window.location);
      const to = withReturnTo(urls.signIn, here);
      // Rendering can repeat while the page leaves: start one navigation per target.
      if (redirecting.get(app) !== to) {
        redirecting.set(app, to);
        // Not during render: a 'history' navigation makes the host re-render synchronously.
        // And only from the page that asked: after deleting an account, say, the page's own
        // navigation (to after-sign-out) may already be under way, and wins.
        setTimeout(() => {
          const stillHere = typeof window === 'undefined' || currentRelativeUrl(window.location) === here;
          if (!stillHere || isLeavingPage()) return void redirecting.delete(app);
          navigate(to)
            .catch(reportError)
            .finally(() => setTimeout(() => redirecting.delete(app), 2000));
        }, 0);
      }
      return use(NEVER);
    }
    case 'anonymous': {
      let signUp = anonymousSignUps.get(app);
      if (!signUp) {
        signUp = app.getUser({ or: 'anonymous' }).finally(() => anonymousSignUps.delete(app));
        anonymousSignUps.set(app, signUp);
      }
      // The sign-up changes the session: the provider renders again with the new user's key;
      // until then, the user the sign-up returned.
      return guardUser(use(signUp));
    }
    default:
      return null;
  }
}
