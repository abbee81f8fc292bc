import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Deps } from '../deps.js';
import type { LatchEnv } from '../env.js';
import { type NotifyListener, listenForNotifications } from '../db/notify-listener.js';
import type { ProjectAuthCache } from './project-auth-cache.js';

/** The PostgreSQL NOTIFY channel on which instances tell each other that projects or keys changed. */
export const CACHE_CHANNEL = 'latch_project_auth';

/**
 * Where the invalidation listener connects: DATABASE_DIRECT_URL, else DATABASE_URL unless
 * DATABASE_PREPARED_STATEMENTS=false says a transaction-mode pooler is in between (no LISTEN
 * there); null means no listener, and other instances' writes reach this one's cache only when its
 * entries expire (PROJECT_AUTH_CACHE_TTL_MS).
 */
export function listenUrlOf(env: LatchEnv): string | null {
  if (env.databaseDirectUrl) return env.databaseDirectUrl;
  return env.databaseUrl && env.databasePreparedStatements ? env.databaseUrl : null;
}

/**
 * Cross-instance invalidation of the project-auth cache (issue 21, item 2). A write to projects,
 * tenancies or API keys clears this instance's cache at once and sends `pg_notify` (through the
 * ordinary pool, so it works behind PgBouncer too); every other instance's listener clears its
 * cache when the notification arrives, typically within milliseconds. The notification is only a
 * wake-up hint: the cache's 5 s TTL stays the bound when a listener is down or a notification is
 * lost, and a listener that (re)connects clears the cache, since it may have missed some.
 */
export function startCacheSignals(
  deps: Pick<Deps, 'db' | 'env' | 'log'>,
  cache: ProjectAuthCache,
): { listener: NotifyListener | null; close: () => Promise<void> } {
  const self = randomUUID();
  cache.onInvalidate(() => {
    sql`select pg_notify(${CACHE_CHANNEL}, ${self})`.execute(deps.db).catch((error: unknown) => {
      deps.log.warn('could not notify the other instances of a cache invalidation', { error: error instanceof Error ? error.message : String(error) });
    });
  });
  const url = listenUrlOf(deps.env);
  if (!url) return { listener: null, close: async () => {} };
  const listener = listenForNotifications({
    url,
    channel: CACHE_CHANNEL,
    onNotify: (sender) => {
      if (sender !== self) cache.invalidateLocal();
    },
    onConnect: () => cache.invalidateLocal(),
    warn: deps.log.warn,
  });
  return { listener, close: () => listener.close() };
}
