/**
 * The impersonation banner (README "Impersonation"): in a tab that /handler/impersonate signed in
 * as a user, a bar at the top says whose account this is and ends the impersonation (signs out,
 * then closes the tab the console opened, or goes to after-sign-out). The provider renders it, so
 * every page of the host app shows it. Which tab impersonates is kept in session storage, which is
 * per tab: the owner's other tabs of the app are not marked.
 */
import { Suspense, useEffect, useState } from 'react';
import { useRunAsync } from '../async-errors.js';
import { useLatchContext, useUser } from '../hooks.js';
import { Button, LatchRoot } from './ui.js';

const storageKey = (projectId: string) => `latch:${projectId}:impersonating`;
const listeners = new Set<() => void>();

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // storage blocked by the browser's settings
  }
}

/** Marks this tab as impersonating `userId` (the /handler/impersonate page, after its sign-in). */
export function markImpersonating(projectId: string, userId: string | null): void {
  const store = storage();
  if (userId === null) store?.removeItem(storageKey(projectId));
  else store?.setItem(storageKey(projectId), userId);
  for (const listener of listeners) listener();
}

/** The bar, when this tab impersonates the signed-in user; nothing otherwise. */
export function ImpersonationBanner() {
  const { app, sessionGeneration } = useLatchContext();
  const [userId, setUserId] = useState<string | null>(null);
  useEffect(() => {
    const read = () => setUserId(storage()?.getItem(storageKey(app.projectId)) ?? null);
    read();
    listeners.add(read);
    return () => {
      listeners.delete(read);
    };
  }, [app, sessionGeneration]);
  if (!userId) return null;
  return (
    <Suspense fallback={null}>
      <Banner userId={userId} />
    </Suspense>
  );
}

function Banner({ userId }: { userId: string }) {
  const { app, urls, navigate } = useLatchContext();
  const user = useUser();
  const runAsync = useRunAsync();
  // Signed out, or signed in as someone else since: not an impersonation any more.
  if (!user || user.id !== userId) return null;
  const end = () =>
    runAsync(async () => {
      await app.signOut();
      markImpersonating(app.projectId, null);
      // The console opened this tab: close it (browsers close only tabs a script opened); otherwise go to after-sign-out.
      if (typeof window !== 'undefined') window.close();
      await navigate(urls.afterSignOut);
    });
  return (
    <LatchRoot className="latch-impersonation">
      <div className="latch-impersonation-banner" role="status" aria-label="Impersonation">
        <span>
          You are impersonating <strong>{user.display_name ?? user.primary_email ?? user.id}</strong>. What you do here is done as this user.
        </span>
        <Button variant="secondary" onClick={end}>
          End impersonation
        </Button>
      </div>
    </LatchRoot>
  );
}
