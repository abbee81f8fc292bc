import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { WEBHOOK_TEST_EVENT, type webhookEndpointCreateSchema, type webhookEndpointUpdateSchema } from '../../../contract/schemas/webhooks.js';
import type { AuthContext } from '../../access/context.js';
import type { Deps } from '../../deps.js';
import { enqueueDelivery } from './delivery.js';
import { endpointTakes, webhookMessageId, webhookPayload } from './events.js';
import { parseWebhookUrl, resolveWebhookTarget, WebhookTargetRefused } from './outbound.js';
import { newWebhookSecret, sealWebhookSecret } from './signing.js';
import * as q from './queries.js';

/** A project's webhook endpoints and their deliveries (admin access). */

export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;
const REPLAY_LIMIT = 1000;

/** Refuses a URL the worker would refuse, so the owner hears it now rather than in the log. */
async function checkUrl(deps: Deps, url: string): Promise<void> {
  try {
    parseWebhookUrl(url);
    await resolveWebhookTarget(url, deps.env.webhooksAllowPrivate === true);
  } catch (error) {
    if (error instanceof WebhookTargetRefused) throw new KnownErrors.WebhookUrlNotAllowed();
    throw error;
  }
}

async function requireEndpoint(deps: Deps, auth: AuthContext, endpointId: string): Promise<q.EndpointRow> {
  const row = await q.findEndpoint(deps.db, auth.tenancy.id, endpointId);
  if (!row) throw new KnownErrors.WebhookEndpointNotFound(endpointId);
  return row;
}

export async function createEndpoint(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof webhookEndpointCreateSchema>,
): Promise<{ row: q.EndpointRow; secret: string }> {
  await checkUrl(deps, input.url);
  const id = randomUUID();
  const secret = newWebhookSecret();
  const row = await q.insertEndpoint(deps.db, {
    tenancy_id: auth.tenancy.id,
    id,
    url: input.url,
    description: input.description ?? '',
    event_types: input.event_types ? JSON.stringify(input.event_types) : null,
    enabled: input.enabled ?? true,
    secret_sealed: sealWebhookSecret(deps.env.secret, auth.tenancy.id, id, secret),
  });
  return { row, secret };
}

export async function listEndpoints(deps: Deps, auth: AuthContext): Promise<q.EndpointRow[]> {
  return q.listEndpoints(deps.db, auth.tenancy.id);
}

export async function getEndpoint(deps: Deps, auth: AuthContext, endpointId: string): Promise<q.EndpointRow> {
  return requireEndpoint(deps, auth, endpointId);
}

export async function updateEndpoint(deps: Deps, auth: AuthContext, input: z.infer<typeof webhookEndpointUpdateSchema>): Promise<q.EndpointRow> {
  if (input.url !== undefined) await checkUrl(deps, input.url);
  const patch: Parameters<typeof q.updateEndpoint>[3] = {};
  if (input.url !== undefined) patch.url = input.url;
  if (input.description !== undefined) patch.description = input.description;
  if (input.event_types !== undefined) patch.event_types = input.event_types ? JSON.stringify(input.event_types) : null;
  // Enabling again starts a fresh failure count and clears why it was disabled.
  if (input.enabled !== undefined) Object.assign(patch, { enabled: input.enabled, ...(input.enabled ? { disabled_reason: null, failing_since: null } : {}) });
  const row = Object.keys(patch).length
    ? await q.updateEndpoint(deps.db, auth.tenancy.id, input.endpoint_id, patch)
    : await q.findEndpoint(deps.db, auth.tenancy.id, input.endpoint_id);
  if (!row) throw new KnownErrors.WebhookEndpointNotFound(input.endpoint_id);
  return row;
}

export async function deleteEndpoint(deps: Deps, auth: AuthContext, endpointId: string): Promise<void> {
  if (!(await q.deleteEndpoint(deps.db, auth.tenancy.id, endpointId))) throw new KnownErrors.WebhookEndpointNotFound(endpointId);
}

/**
 * A new signing secret, shown once. The previous secret keeps signing beside it (two signatures in
 * `webhook-signature`) for `overlapSeconds`, so receivers can switch without losing a delivery.
 */
export async function rotateSecret(deps: Deps, auth: AuthContext, endpointId: string, overlapSeconds = DEFAULT_ROTATION_OVERLAP_SECONDS) {
  const current = await requireEndpoint(deps, auth, endpointId);
  const secret = newWebhookSecret();
  const row = await q.updateEndpoint(deps.db, auth.tenancy.id, endpointId, {
    secret_sealed: sealWebhookSecret(deps.env.secret, auth.tenancy.id, endpointId, secret),
    previous_secret_sealed: overlapSeconds > 0 ? current.secret_sealed : null,
    previous_secret_expires_at: overlapSeconds > 0 ? new Date(Date.now() + overlapSeconds * 1000) : null,
  });
  if (!row) throw new KnownErrors.WebhookEndpointNotFound(endpointId);
  return { row, secret };
}

/** "Send test event": a `webhook.test` message to this endpoint only, delivered like any other. */
export async function sendTestEvent(deps: Deps, auth: AuthContext, endpointId: string): Promise<{ message_id: string; delivery_id: string }> {
  await requireEndpoint(deps, auth, endpointId);
  return deps.db.transaction().execute(async (trx) => {
    const messageId = webhookMessageId();
    await q.insertMessage(trx, {
      tenancy_id: auth.tenancy.id,
      id: messageId,
      event_type: WEBHOOK_TEST_EVENT,
      payload: webhookPayload(WEBHOOK_TEST_EVENT, { endpoint_id: endpointId, project_id: auth.project.id }),
    });
    const deliveryId = await enqueueDelivery(trx, auth.tenancy.id, messageId, endpointId);
    return { message_id: messageId, delivery_id: deliveryId };
  });
}

export async function listDeliveries(deps: Deps, auth: AuthContext, endpointId: string, limit = 50) {
  await requireEndpoint(deps, auth, endpointId);
  return q.listDeliveries(deps.db, auth.tenancy.id, endpointId, limit);
}

/** Sends one delivery's message again, as a new delivery (same `webhook-id`: receivers dedupe). */
export async function retryDelivery(deps: Deps, auth: AuthContext, endpointId: string, deliveryId: string): Promise<{ delivery_id: string }> {
  await requireEndpoint(deps, auth, endpointId);
  const delivery = await q.findDelivery(deps.db, auth.tenancy.id, endpointId, deliveryId);
  if (!delivery) throw new KnownErrors.WebhookDeliveryNotFound(deliveryId);
  const id = await deps.db.transaction().execute((trx) => enqueueDelivery(trx, auth.tenancy.id, delivery.message_id, endpointId));
  return { delivery_id: id };
}

/**
 * Sends again every stored message since `since` that this endpoint's filter takes (at most 1000),
 * as new deliveries. Only messages stored while the project had an enabled endpoint exist.
 */
export async function replaySince(deps: Deps, auth: AuthContext, endpointId: string, since: Date): Promise<number> {
  const endpoint = await requireEndpoint(deps, auth, endpointId);
  const messages = (await q.listMessagesSince(deps.db, auth.tenancy.id, since, REPLAY_LIMIT)).filter(
    (m) => m.event_type !== WEBHOOK_TEST_EVENT && endpointTakes(endpoint.event_types, m.event_type),
  );
  await deps.db.transaction().execute(async (trx) => {
    for (const message of messages) await enqueueDelivery(trx, auth.tenancy.id, message.id, endpointId);
  });
  return messages.length;
}
