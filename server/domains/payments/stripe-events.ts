import { z } from 'zod';
import { defineJobKind } from '../../jobs/kinds.js';
import { exponentialBackoff } from '../../jobs/backoff.js';
import { enqueue } from '../../jobs/outbox.js';
import type { Deps } from '../../deps.js';
import { stripeClient } from './stripe.js';
import { stripeKeys } from './purchases.js';
import { applyStripeEvent } from './billing.js';
import * as q from './queries.js';

/**
 * Stripe webhooks (issue 18 item 5). The route (server/http/stripe-webhook.ts) checks the
 * signature on the raw body, then records the event id and queues this job in one transaction: a
 * repeat delivery finds the id and does nothing, and a crash after the answer loses nothing (the
 * job is in the outbox). The job re-fetches the object from Stripe, so events applied out of order
 * or late still leave the purchase in Stripe's current state.
 */

const payloadSchema = z.object({ event_id: z.string(), type: z.string(), object_id: z.string() });
type StripeEventPayload = z.infer<typeof payloadSchema>;

export const stripeEventJobKind = defineJobKind<StripeEventPayload, string>({
  kind: 'payments.stripe-event',
  title: 'Stripe event',
  maxAttempts: 12,
  backoff: exponentialBackoff({ baseMs: 5_000 }),
  parse: (payload) => payloadSchema.parse(payload),
  handle: async (job, { deps }) => {
    if (!job.tenancyId) return 'nothing';
    return applyStripeEvent(deps, job.tenancyId, job.payload.type, job.payload.object_id);
  },
});

export type WebhookOutcome = { status: 400; message: string } | { status: 200; duplicate: boolean };

/** Verifies one delivery and queues it once. */
export async function receiveStripeWebhook(deps: Deps, tenancyId: string, rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
  const keys = await stripeKeys(deps, deps.db, tenancyId).catch(() => null);
  if (!keys) return { status: 400, message: 'Stripe is not set up for this project' };
  if (!signature) return { status: 400, message: 'Missing Stripe-Signature header' };
  const stripe = await stripeClient(deps, keys.secretKey);
  let event;
  try {
    // constructEvent checks the HMAC and the timestamp (default tolerance 300 s: stale replays fail).
    event = stripe.webhooks.constructEvent(rawBody, signature, keys.webhookSecret);
  } catch {
    return { status: 400, message: 'Invalid Stripe signature' };
  }
  const object = event.data.object as { id?: string };
  const objectId = typeof object.id === 'string' ? object.id : '';
  const recorded = await deps.db.transaction().execute(async (trx) => {
    const first = await q.recordStripeEvent(trx, tenancyId, event.id, event.type);
    if (first) await enqueue(trx, stripeEventJobKind, { event_id: event.id, type: event.type, object_id: objectId }, { tenancyId });
    return first;
  });
  return { status: 200, duplicate: !recorded };
}
