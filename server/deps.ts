import type { Database } from './db/kysely.js';
import type { LatchEnv } from './env.js';
import type { KeyringHolder } from './access/keyring.js';
import type { ProjectAuthCache } from './access/project-auth-cache.js';

/** What services need from the running server; built once in app start-up, passed in ctx. */
export interface Deps {
  db: Database;
  /**
   * Lag-tolerant heavy reads (lists, search, metrics): a streaming replica when DATABASE_READ_URL is
   * set, with the primary as fallback; otherwise the same object as `db`. Single statements only,
   * never writes, never a read that must see the caller's own last write (db/read-replica.ts).
   */
  readDb: Database;
  env: LatchEnv;
  keyring: KeyringHolder;
  /** Public base URL (no trailing slash), e.g. http://localhost:8400. */
  baseUrl: () => string;
  /** Sub-key for secrets kept in project config (OAuth client secrets, SMTP passwords). */
  configKey: Buffer;
  log: Logger;
  /** Project + key lookups of the request pipeline; services invalidate it after writing projects or keys. */
  projectAuthCache: ProjectAuthCache;
}

export interface Logger {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export function createLogger(level: LatchEnv['logLevel']): Logger {
  const rank = { error: 0, warn: 1, info: 2 } as const;
  const emit = (at: keyof typeof rank) => (message: string, extra?: Record<string, unknown>) => {
    if (rank[at] > rank[level]) return;
    const line = extra ? `${message} ${JSON.stringify(extra)}` : message;
    (at === 'error' ? console.error : at === 'warn' ? console.warn : console.log)(`[latch] ${line}`);
  };
  return { info: emit('info'), warn: emit('warn'), error: emit('error') };
}
