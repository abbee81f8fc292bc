import type { z } from 'zod';
import type { contactChannelSchema } from '../../../contract/schemas/contact-channels.js';
import type { ContactChannelRow } from './queries.js';

export type ContactChannel = z.infer<typeof contactChannelSchema>;

export function toContactChannelDto(row: ContactChannelRow): ContactChannel {
  return {
    id: row.id,
    user_id: row.user_id,
    type: 'email',
    value: row.value,
    is_primary: row.is_primary,
    is_verified: row.is_verified,
    used_for_auth: row.used_for_auth,
  };
}
