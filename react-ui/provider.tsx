import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useCallback, useEffect, useInsertionEffect, useMemo, useState } from 'react';
import type { ClientApp } from '../sdk/index.js';
import { UnhandledErrorAlerts, useUnhandledErrors } from './async-errors.js';
import { ImpersonationBanner } from './components/impersonation-banner.js';
import { LatchRoot } from './components/ui.js';
import { LatchContext, type LatchContextValue, type PaymentItemsChoice } from './context.js';
import { type RedirectMethod, redirectTo } from './navigation.js';
import { injectStyles } from './styles.js';
import { type LatchUrls, resolveUrls } from './urls.js';

export interface LatchProviderProps {
  /** The browser app of your project (`new ClientApp({ projectId, publishableClientKey, baseUrl })`). */
  app: ClientApp;
  /** Where the handler routes live (default `/handler`; must start with "/"). */
  handlerPath?: string;
  /** Overrides of the app's pages: `home`, `afterSignIn`, `afterSignUp`, `afterSignOut`, or any handler route. */
  urls?: Partial<LatchUrls>;
  /** How the kit changes pages (default `'window'`). See {@link RedirectMethod}. */
  redirectMethod?: RedirectMethod;
  /** Force a colour scheme; default: follow the system (`prefers-color-scheme`). */
  theme?: 'light' | 'dark';
  /**
   * The items the billing sections show with their quantities: `user` ids in account settings,
   * `team` ids in team management (default: none, only the products held), e.g.
   * `{ user: ['credits'], team: ['seats'] }`.
   */
  paymentItems?: PaymentItemsChoice;
  children?: ReactNode;
}

/**
 * Makes the Latch app available to the hooks and components below it, and binds the SDK's own
 * query cache to React (so a change made anywhere, e.g. a new display name, shows everywhere at
 * once). Injects the kit's scoped stylesheet once.
 *
 * @example
 * const app = new ClientApp({ projectId, publishableClientKey, baseUrl: 'http://localhost:8400' });
 * createRoot(root).render(
 *   <LatchProvider app={app}>
 *     <Suspense fallback={<Loading />}><App /></Suspense>
 *   </LatchProvider>,
 * );
 */
export function LatchProvider({ app, handlerPath, urls, redirectMethod = 'window', theme, paymentItems, children }: LatchProviderProps) {
  useInsertionEffect(() => injectStyles(), []);
  const [sessionGeneration, setSessionGeneration] = useState(0);
  useEffect(() => app.onSessionChange(() => setSessionGeneration((n) => n + 1)), [app]);
  // Key the memo on the URL values, not the object identity, so an inline `urls={{…}}` is stable.
  const urlsKey = JSON.stringify(urls ?? {});
  const resolved = useMemo(() => resolveUrls({ handlerPath, urls }), [handlerPath, urlsKey]);
  // Stable across session changes, so a page's pending delayed redirect is not restarted by one.
  const navigate = useCallback((to: string) => redirectTo(redirectMethod, to), [redirectMethod]);
  const unhandled = useUnhandledErrors();
  const itemsKey = JSON.stringify(paymentItems ?? {});
  const items = useMemo<PaymentItemsChoice>(() => JSON.parse(itemsKey) as PaymentItemsChoice, [itemsKey]);
  const value = useMemo<LatchContextValue>(
    () => ({ app, urls: resolved, redirectMethod, theme, sessionGeneration, navigate, reportError: unhandled.report, paymentItems: items }),
    [app, resolved, redirectMethod, theme, sessionGeneration, navigate, unhandled.report, items],
  );
  return (
    <QueryClientProvider client={app.queryClient}>
      <LatchContext.Provider value={value}>
        <ImpersonationBanner />
        {children}
        {unhandled.errors.length > 0 ? (
          <LatchRoot>
            <UnhandledErrorAlerts errors={unhandled.errors} dismiss={unhandled.dismiss} />
          </LatchRoot>
        ) : null}
      </LatchContext.Provider>
    </QueryClientProvider>
  );
}
