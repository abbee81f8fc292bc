/** Whether a database error is a unique violation (SQLSTATE 23505), on pg and PGlite alike. */
export function isUniqueViolation(error: unknown, indexName?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code !== '23505') return false;
  if (!indexName) return true;
  return constraint === indexName || (typeof message === 'string' && message.includes(indexName));
}

/**
 * Whether a database error is a foreign-key violation (SQLSTATE 23503): the row referred to was
 * deleted by a concurrent request between our existence check and our write. `column` narrows it to
 * the constraint over that column (auto-named `<table>_tenancy_id_<column>_fkey`).
 */
export function isForeignKeyViolation(error: unknown, column?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (code !== '23503') return false;
  return !column || (typeof constraint === 'string' && constraint.includes(column));
}

/** Seconds a DATABASE_UNAVAILABLE answer asks the caller to wait (Retry-After). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * Node socket errors and pg's own messages when the connection to PostgreSQL (or the pooler in
 * front of it) is refused, cut, or cannot be had in time.
 */
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/**
 * Whether a database error means the database cannot be reached right now, rather than that the
 * query was wrong: SQLSTATE class 08 (connection exception; PgBouncer's "query_wait_timeout" and
 * "server conn crashed?" are 08P01), 57P01-57P03 (the server is shutting down, crashed, or still
 * starting), 53300 (too many connections), a socket error, or pg giving up on a connection. Such a
 * request is answered DATABASE_UNAVAILABLE (503), not INTERNAL_SERVER_ERROR (server/errors/wire.ts).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
    if (CONNECTION_ERRNOS.has(code)) return true;
  }
  return typeof message === 'string' && CONNECTION_MESSAGES.some((text) => message.includes(text));
}
