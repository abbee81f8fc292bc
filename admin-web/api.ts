import { AdminApp, ClientApp, KnownError, LatchNetworkError } from '../sdk/index.js';
import { consoleTokenStore } from './console-token-store.js';

/**
 * The console's two kinds of SDK app. Owners are users of the internal project (id `internal`,
 * fixed by a migration); its client calls need no publishable key, so the console needs no
 * configuration at all: it talks to the server that served it (same origin). The owner's refresh
 * token lives in an HttpOnly cookie and the access token in memory (console-token-store.ts). Each project is managed through an `AdminApp` authenticated
 * with the owner's internal access token (refreshed by the internal app as needed).
 */
export const INTERNAL_PROJECT_ID = 'internal';

export const internalApp = new ClientApp({
  projectId: INTERNAL_PROJECT_ID,
  baseUrl: window.location.origin,
  tokenStore: consoleTokenStore(window.location.origin),
  urls: { signIn: '/sign-in' },
});

const adminApps = new Map<string, AdminApp>();

/** One AdminApp per project (so each keeps its own cache), created on first use. */
export function adminAppFor(projectId: string): AdminApp {
  let app = adminApps.get(projectId);
  if (!app) {
    app = new AdminApp({ projectId, baseUrl: window.location.origin, adminAccessToken: () => internalApp.getAccessToken() });
    adminApps.set(projectId, app);
  }
  return app;
}

/** Drops every project's cache (on sign-out, so the next owner sees nothing of the last). */
export function forgetAdminApps(): void {
  for (const app of adminApps.values()) app.queryClient.clear();
  adminApps.clear();
}

/** The message to show for a failure: the server's catalogued message for known errors. */
export function errorMessage(error: unknown): string {
  if (error instanceof KnownError) return error.message;
  if (error instanceof LatchNetworkError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The known-error code, when there is one (shown next to the message for searching the docs). */
export function errorCode(error: unknown): string | null {
  return error instanceof KnownError ? error.code : null;
}
