import pg from 'pg';

/** What a listener reports; `log` is the server's logger (deps.log). */
export interface NotifyListenerOptions {
  url: string;
  channel: string;
  onNotify: (payload: string) => void;
  /** After every (re)connection: notifications sent while it was down are lost, so catch up here. */
  onConnect: () => void;
  warn: (message: string, extra?: Record<string, unknown>) => void;
  /** Wait between reconnection attempts (default 1 s). */
  reconnectMs?: number;
}

export interface NotifyListener {
  /** Whether the LISTEN connection is up now. */
  readonly connected: boolean;
  close(): Promise<void>;
}

/**
 * One dedicated connection that LISTENs on a channel, reconnecting on its own after PostgreSQL
 * restarts or the connection drops. It must reach PostgreSQL itself: a pooler in transaction mode
 * (PgBouncer) hands the session back after each statement, and the notifications never arrive.
 * Notifications are hints only (a missed one is caught up by `onConnect` and by the caches' TTL).
 */
export function listenForNotifications(options: NotifyListenerOptions): NotifyListener {
  const reconnectMs = options.reconnectMs ?? 1_000;
  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  const retry = () => {
    connected = false;
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, reconnectMs);
    timer.unref();
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: options.url, keepAlive: true, connectionTimeoutMillis: 5_000 });
    client = next;
    // Both fire when PostgreSQL restarts or the socket drops; the client is then discarded.
    next.on('error', (error) => {
      options.warn('the cache-invalidation listener lost its connection', { error: error.message });
      retry();
    });
    next.on('end', retry);
    next.on('notification', (message) => {
      if (message.channel === options.channel) options.onNotify(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(options.channel)}`);
      if (closed) return void next.end().catch(() => {});
      connected = true;
      options.onConnect();
    } catch (error) {
      next.end().catch(() => {});
      if (!closed) options.warn('the cache-invalidation listener could not connect', { error: error instanceof Error ? error.message : String(error) });
      retry();
    }
  };
  void connect();

  return {
    get connected() {
      return connected;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      connected = false;
      await client?.end().catch(() => {});
    },
  };
}
