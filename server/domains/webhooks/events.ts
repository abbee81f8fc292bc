import { randomUUID } from 'node:crypto';
import type { WebhookEventType } from '../../../contract/schemas/webhooks.js';
import type { Executor } from '../../db/executor.js';
import { enqueueDelivery } from './delivery.js';
import * as q from './queries.js';

/**
 * Announcing a change: the services that make a change call emitWebhookEvent with the
 * transaction's executor, so the event exists if and only if the change commits. The message is
 * stored once; one delivery (and its job) per enabled endpoint whose filter takes the event.
 * A project with no endpoints pays one indexed read.
 */

/** Payloads above this are sent as `{ id }` with `truncated: true` (receivers fetch the object). */
export const WEBHOOK_MAX_PAYLOAD_BYTES = 256 * 1024;

export function webhookMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

export function endpointTakes(eventTypes: string | null, type: string): boolean {
  if (eventTypes === null) return true;
  return (JSON.parse(eventTypes) as string[]).includes(type);
}

export function webhookPayload(type: string, data: Record<string, unknown>, at = new Date()): string {
  const full = JSON.stringify({ type, timestamp: at.toISOString(), data });
  if (Buffer.byteLength(full) <= WEBHOOK_MAX_PAYLOAD_BYTES) return full;
  return JSON.stringify({ type, timestamp: at.toISOString(), data: { id: data.id ?? null }, truncated: true });
}

export async function emitWebhookEvent(trx: Executor, tenancyId: string, type: WebhookEventType, data: Record<string, unknown>): Promise<void> {
  const endpoints = (await q.listEnabledEndpoints(trx, tenancyId)).filter((endpoint) => endpointTakes(endpoint.event_types, type));
  if (endpoints.length === 0) return;
  const id = webhookMessageId();
  await q.insertMessage(trx, { tenancy_id: tenancyId, id, event_type: type, payload: webhookPayload(type, data) });
  for (const endpoint of endpoints) await enqueueDelivery(trx, tenancyId, id, endpoint.id);
}
