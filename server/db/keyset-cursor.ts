import { KnownErrors } from '../../contract/errors/known-errors.js';

/** A keyset position: the last row's creation time and id (the lists' `ORDER BY created_at, id`). */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

/** The opaque cursor of a keyset-paginated list: base64url of `<millis>:<uuid>`. */
export function encodeKeysetCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${row.created_at.getTime()}:${row.id}`, 'utf8').toString('base64url');
}

/**
 * Reads a cursor back; anything this server did not hand out (a date PostgreSQL cannot hold, a
 * malformed id) is a SCHEMA_ERROR, never a query that fails in the database.
 */
export function decodeKeysetCursor(cursor: string): KeysetPosition {
  const match = /^(\d{1,16}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const createdAt = new Date(Number(match?.[1]));
  if (!match?.[2] || Number.isNaN(createdAt.getTime())) throw new KnownErrors.SchemaError('cursor is not a cursor returned by this endpoint.');
  return { createdAt, id: match[2] };
}
