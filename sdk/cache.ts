/**
 * The SDK's read cache, on `@tanstack/query-core` (so `react-ui` can bind the same client with
 * `@tanstack/react-query`). Reads are served from the cache until a mutation invalidates them or
 * until 5000 ms after their last subscriber leaves (spec section 9). Retries are the transport's
 * job, and the transport reports offline itself, so the cache neither retries nor pauses.
 */
import { QueryClient, QueryObserver, hashKey, type QueryFunctionContext, type QueryKey } from '@tanstack/query-core';

/** Cache invalidation after the last subscriber leaves (spec section 9). */
export const CACHE_GC_TIME_MS = 5000;
/**
 * Fetches of one read start at most once per 300 ms (spec section 9: "fetch concurrency 1,
 * throttle 300 ms"). Concurrent fetches of one read already share a request (query-core dedupes
 * them); the throttle spaces out refetches, so a burst of invalidations (a form saving field after
 * field, several tabs signing in) costs the server one request per read per 300 ms, not one each.
 */
export const CACHE_FETCH_THROTTLE_MS = 300;

/**
 * A cached read: a `@tanstack/query-core` query options object, usable as it is with
 * `queryClient.fetchQuery`, `useQuery` or {@link subscribeToQuery}.
 */
export interface LatchQuery<T> {
  queryKey: QueryKey;
  queryFn: (context: QueryFunctionContext) => Promise<T>;
  staleTime: number;
}

/** When each read of a query client last started fetching (per client: apps never slow each other). */
const fetchStarts = new WeakMap<QueryClient, Map<string, number>>();

/**
 * Waits until the read's previous fetch started at least the throttle ago, then records this start.
 * A fetch cancelled while it waits (query-core replaced it with a newer one) never reaches the server.
 */
async function throttleFetch(client: QueryClient, queryKey: QueryKey, signal: AbortSignal): Promise<void> {
  let starts = fetchStarts.get(client);
  if (!starts) {
    starts = new Map();
    fetchStarts.set(client, starts);
  }
  const key = hashKey(queryKey);
  const previous = starts.get(key);
  // Waits in a loop: a timer can fire a few ms early by the wall clock (Node counts it from the event
  // loop's cached time, which lags on a busy process; a loaded test run saw a 295 ms gap), and the throttle is a floor.
  const due = previous === undefined ? 0 : previous + CACHE_FETCH_THROTTLE_MS;
  while (Date.now() < due) {
    await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    if (signal.aborted) throw signal.reason;
  }
  if (signal.aborted) throw signal.reason;
  starts.set(key, Date.now());
  // Forget reads not fetched lately (the map must not grow with every key ever used).
  if (starts.size > 500) for (const [k, at] of starts) if (Date.now() - at > CACHE_FETCH_THROTTLE_MS) starts.delete(k);
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
  return {
    queryKey,
    queryFn: async (context) => {
      await throttleFetch(context.client, context.queryKey, context.signal);
      return queryFn();
    },
    staleTime: Number.POSITIVE_INFINITY,
  };
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
