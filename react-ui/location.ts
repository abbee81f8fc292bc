/**
 * The page location the handler and forms read: the `location` prop a framework passes to the
 * handler, else `window.location`, followed through `popstate` (back/forward and the 'history'
 * redirect method). No router library is needed.
 */
import { createContext, useContext, useSyncExternalStore } from 'react';

export interface PageLocation {
  pathname: string;
  search: string;
  hash: string;
}

/** The location given to `<LatchHandler location={…}>`, for the pages below it. */
export const LocationContext = createContext<PageLocation | null>(null);

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
}

// useSyncExternalStore compares snapshots with Object.is: return a string, not a new object.
const snapshot = () => `${window.location.pathname}\u0000${window.location.search}\u0000${window.location.hash}`;
const serverSnapshot = () => '/\u0000\u0000';

/** The current page location (re-renders on back/forward and 'history' navigation). */
export function usePageLocation(): PageLocation {
  const given = useContext(LocationContext);
  const current = useSyncExternalStore(subscribe, snapshot, serverSnapshot);
  if (given) return given;
  const [pathname = '/', search = '', hash = ''] = current.split('\u0000');
  return { pathname, search, hash };
}

/** An absolute URL on this origin for a relative one (the links in emails must be absolute). */
export function absoluteUrl(relative: string): string {
  return new URL(relative, window.location.href).href;
}
