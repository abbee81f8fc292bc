import { useQuery } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { internalApp } from './api.js';

let generation = 0;
internalApp.onSessionChange(() => {
  generation++;
});

/**
 * The signed-in owner (null when signed out, undefined while loading). The query key follows the
 * session (sign-in, sign-out, a failed refresh), so this re-renders on each of them.
 */
export function useOwner() {
  useSyncExternalStore(
    (listener) => internalApp.onSessionChange(listener),
    () => generation,
  );
  return useQuery(internalApp.currentUserQuery(), internalApp.queryClient);
}
