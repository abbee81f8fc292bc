import type * as q from './queries.js';

export function toEndpointDto(row: q.EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types === null ? null : (JSON.parse(row.event_types) as string[]),
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at_millis:
      row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at.getTime() : null,
    created_at_millis: row.created_at.getTime(),
  };
}

export function toDeliveryDto(row: Awaited<ReturnType<typeof q.listDeliveries>>[number]) {
  return {
    id: row.id,
    message_id: row.message_id,
    endpoint_id: row.endpoint_id,
    event_type: row.event_type,
    state: row.state,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    last_response_snippet: row.last_response_snippet,
    created_at_millis: row.created_at.getTime(),
    sent_at_millis: row.sent_at ? row.sent_at.getTime() : null,
  };
}
