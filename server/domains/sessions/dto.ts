import type { z } from 'zod';
import type { sessionSchema } from '../../../contract/schemas/sessions.js';
import type { SessionRow } from '../../db/schema.js';

/** A session on the wire: the type of contract/schemas/sessions.ts's sessionSchema. */
export type SessionDto = z.infer<typeof sessionSchema>;

/** `currentSessionId`: the caller's own session, flagged is_current_session. */
export function toSessionDto(row: SessionRow, currentSessionId: string | undefined): SessionDto {
  return {
    id: row.id,
    user_id: row.user_id,
    created_at: row.created_at.getTime(),
    is_impersonation: row.is_impersonation,
    last_used_at: row.last_used_at.getTime(),
    is_current_session: row.id === currentSessionId,
    last_used_at_end_user_ip_info: row.last_used_ip ? { ip: row.last_used_ip } : null,
  };
}
