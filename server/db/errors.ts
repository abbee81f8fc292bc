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
