/** Whether a database error is a unique violation (SQLSTATE 23505), on pg and PGlite alike. */
export function isUniqueViolation(error: unknown, indexName?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code !== '23505') return false;
  if (!indexName) return true;
  return constraint === indexName || (typeof message === 'string' && message.includes(indexName));
}
