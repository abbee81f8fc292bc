/**
 * What several handler pages share: a one-shot call per code (a code can be used once, and React
 * may render a page twice), the delayed redirect after a message, and the "not enabled" state
 * of routes whose feature has not landed.
 */
import { Component, type ErrorInfo, type ReactNode, use, useEffect } from 'react';
import { Alert, NoticePage, Page, errorMessage } from '../components/ui.js';
import { useLatchContext } from '../hooks.js';
import { usePageLocation } from '../location.js';
import { REDIRECT_WAIT_MS } from '../urls.js';
import { useRunAsync } from '../async-errors.js';

const calls = new Map<string, Promise<unknown>>();

/**
 * Runs `run` once per `key` for the page's life (a verification code must not be sent twice:
 * the second call would find it used) and suspends until it settles.
 */
export function useOnce<T>(key: string, run: () => Promise<T>): T {
  let call = calls.get(key) as Promise<T> | undefined;
  if (!call) {
    call = run();
    calls.set(key, call);
  }
  return use(call);
}

/** Navigates to `to` after the spec's redirect wait (2000 ms), so the message can be read first. */
export function useDelayedRedirect(to: string | null): void {
  const { navigate } = useLatchContext();
  const runAsync = useRunAsync();
  useEffect(() => {
    if (!to) return;
    const timer = setTimeout(() => runAsync(navigate(to)), REDIRECT_WAIT_MS);
    return () => clearTimeout(timer);
  }, [to, navigate, runAsync]);
}

/** The state of a route whose feature this project (or this version of Latch) does not offer. */
export function NotEnabled({ title, feature }: { title: string; feature: string }) {
  const { urls } = useLatchContext();
  return (
    <NoticePage title={title} kind="info" href={urls.home} linkLabel="Go home">
      {feature} is not enabled for this project.
    </NoticePage>
  );
}

/** A page that needs a `code` query parameter and has none (a truncated link, usually). */
export function MissingCode({ title, parameter = 'code' }: { title: string; parameter?: string }) {
  const { urls } = useLatchContext();
  return (
    <NoticePage title={title} kind="error" href={urls.home} linkLabel="Go home">
      This link is incomplete: it has no {parameter}. Open the link from the email again, or copy all of it.
    </NoticePage>
  );
}

/** Shows what a page threw (a network error, say) as a page, instead of a blank screen. */
export class PageErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('Latch page error', error, info.componentStack);
  }
  override render() {
    if (this.state.error) {
      return (
        <Page title="Something went wrong">
          <Alert kind="error">{errorMessage(this.state.error)}</Alert>
          <div className="latch-footer">
            <a className="latch-link" href="">
              Reload the page
            </a>
          </div>
        </Page>
      );
    }
    return this.props.children;
  }
}

/**
 * A handler page that acts on the emailed link's `code`: without one it shows MissingCode, with one
 * it renders `children(code)` (the page's own component, which may then call hooks freely).
 */
export function CodePage({ title, children }: { title: string; children: (code: string) => ReactNode }) {
  const code = useCode();
  if (!code) return <MissingCode title={title} />;
  return <>{children(code)}</>;
}

/** A query parameter of the page (the `code` of an emailed link, by default). */
export function useCode(name = 'code'): string | null {
  const { search } = usePageLocation();
  return new URLSearchParams(search).get(name);
}
