/**
 * Redirect methods (spec section 2): none, window, framework navigation, or a custom navigate
 * object. Every redirect the UI kit makes goes through {@link redirectTo}, which refuses anything
 * but a relative URL first, so no query parameter can send a user off-site.
 */
import { assertRelativeUrl } from './urls.js';

/**
 * How the UI kit changes pages:
 * - `'window'` (default): a full page load (`window.location.assign`);
 * - `'history'`: framework navigation without a reload (`history.pushState` and a `popstate`
 *   event, which the handler and most single-page routers follow);
 * - `{ navigate }`: your router's navigate function (React Router's `useNavigate()`, Next's `router.push`);
 * - `'none'`: never navigate; pages show a link instead and you decide.
 */
export type RedirectMethod = 'none' | 'window' | 'history' | { navigate: (to: string) => void | Promise<void> };

/** The bits of `window` a redirect needs (a parameter so it can be tested without a DOM). */
export interface NavigationWindow {
  location: { assign(url: string): void };
  history: { pushState(data: unknown, unused: string, url: string): void };
  dispatchEvent(event: Event): boolean;
}

/**
 * Sends the user to `to` (relative only) with `method`. Returns whether a navigation was started
 * (`false` for `'none'`, when the caller should show a link instead).
 *
 * @throws Error 'Redirect URL is not trusted; should be relative.' for any other URL.
 *
 * @example
 * await redirectTo({ navigate: (to) => router.push(to) }, '/dashboard');
 */
export async function redirectTo(
  method: RedirectMethod,
  to: string,
  win: NavigationWindow | undefined = typeof window === 'undefined' ? undefined : window,
): Promise<boolean> {
  assertRelativeUrl(to);
  if (method === 'none') return false;
  if (typeof method === 'object') {
    await method.navigate(to);
    return true;
  }
  if (!win) throw new Error(`Cannot redirect with '${method}' outside a browser: pass a redirectMethod with your framework's navigate function.`);
  if (method === 'history') {
    win.history.pushState(null, '', to);
    // pushState fires nothing by itself: tell the handler (and routers listening) the URL moved.
    win.dispatchEvent(typeof PopStateEvent === 'function' ? new PopStateEvent('popstate', { state: null }) : new Event('popstate'));
    return true;
  }
  leaving = true;
  win.location.assign(to);
  return true;
}

// Set once a full page load has started: the page is going away, so nothing should redirect it again.
let leaving = false;

/**
 * Whether a 'window' redirect has already started a page load. A later redirect (a component
 * noticing the user signed out, say) would cancel the one the user asked for.
 */
export function isLeavingPage(): boolean {
  return leaving;
}
