/**
 * The SDK's read cache, on `@tanstack/query-core` (so `react-ui` can bind the same client with
 * `@tanstack/react-query`). Reads are served from the cache until a mutation invalidates them or
 * until 5000 ms after their last subscriber leaves (spec section 9). Retries are the transport's
 * job, and the transport reports offline itself, so the cache neither retries nor pauses.
 */
import { QueryClient, QueryObserver, type QueryKey } from '@tanstack/query-core';

/** Cache invalidation after the last subscriber leaves (spec section 9). */
export const CACHE_GC_TIME_MS = 5000;

/**
 * A cached read: a `@tanstack/query-core` query options object, usable as it is with
 * `queryClient.fetchQuery`, `useQuery` or {@link subscribeToQuery}.
 */
export interface LatchQuery<T> {
  queryKey: QueryKey;
  queryFn: () => Promise<T>;
  staleTime: number;
}

/** What a subscriber of a cached read sees. */
export type QueryState<T> =
  | { status: 'pending'; data: undefined; error: null; isFetching: boolean }
  | { status: 'success'; data: T; error: null; isFetching: boolean }
  | { status: 'error'; data: T | undefined; error: Error; isFetching: boolean };

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { gcTime: CACHE_GC_TIME_MS, retry: false, networkMode: 'always', refetchOnWindowFocus: false, refetchOnReconnect: false },
      mutations: { retry: false, networkMode: 'always' },
    },
  });
}

/** A read that stays fresh until invalidated (mutations invalidate what they change). */
export function defineQuery<T>(queryKey: QueryKey, queryFn: () => Promise<T>): LatchQuery<T> {
  return { queryKey, queryFn, staleTime: Number.POSITIVE_INFINITY };
}

/**
 * Keeps `listener` told of a cached read (fetching it when there is no data yet), until the
 * returned function is called. `query` is a function so the subscription can follow a new
 * session: `onSessionChange` re-evaluates it (the current user of the new session, say).
 */
export function subscribeToQuery<T>(
  client: QueryClient,
  query: () => LatchQuery<T>,
  listener: (state: QueryState<T>) => void,
  onSessionChange: (callback: () => void) => () => void,
): () => void {
  const observer = new QueryObserver<T, Error, T, T, QueryKey>(client, query());
  const emit = () => {
    const result = observer.getCurrentResult();
    listener({ status: result.status, data: result.data, error: result.error, isFetching: result.isFetching } as QueryState<T>);
  };
  const stopQuery = observer.subscribe(emit);
  const stopSession = onSessionChange(() => observer.setOptions(query()));
  emit();
  return () => {
    stopQuery();
    stopSession();
  };
}
