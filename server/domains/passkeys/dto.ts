import type { z } from 'zod';
import type { passkeySchema } from '../../../contract/schemas/passkeys.js';
import type { PasskeyRow } from './queries.js';

export type Passkey = z.infer<typeof passkeySchema>;

/** A passkey on the wire: never its public key, counter or credential id. */
export function toPasskeyDto(row: PasskeyRow): Passkey {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    rp_id: row.rp_id,
    device_type: row.device_type,
    backed_up: row.backed_up,
    created_at_millis: row.created_at.getTime(),
    last_used_at_millis: row.last_used_at ? row.last_used_at.getTime() : null,
  };
}
