import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';

/**
 * Storage caps per user and team (issue 13, item 10): one client grew the database 35 MB in 2.6 s
 * with 1e6-character image URLs and large metadata. The sizes are of the JSON as stored.
 */

/** One metadata field: undefined = unchanged (take the stored value), null = cleared. */
type Field = unknown;

function jsonBytes(value: Field): number {
  return value === undefined || value === null ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * Refuses (QUOTA_EXCEEDED) a write that would leave one user's or team's client_metadata,
 * client_read_only_metadata and server_metadata above LATCH_METADATA_MAX_BYTES together. `next`
 * holds the fields being written (undefined = unchanged), `stored` the row's current values.
 */
export function assertMetadataWithinQuota(
  deps: Deps,
  next: { client: Field; clientReadOnly: Field; server: Field },
  stored: { client: Field; clientReadOnly: Field; server: Field } = { client: null, clientReadOnly: null, server: null },
): void {
  if (next.client === undefined && next.clientReadOnly === undefined && next.server === undefined) return;
  const limit = deps.env.quotas.metadataMaxBytes;
  const pick = (written: Field, current: Field) => (written === undefined ? current : written);
  const total =
    jsonBytes(pick(next.client, stored.client)) + jsonBytes(pick(next.clientReadOnly, stored.clientReadOnly)) + jsonBytes(pick(next.server, stored.server));
  if (total > limit) throw new KnownErrors.QuotaExceeded('metadata_bytes', limit);
}
