import { randomUUID } from 'node:crypto';
import type { Executor } from '../../db/executor.js';
import type { Deps } from '../../deps.js';
import { defineJobKind, JobFailure, type JobSettlement, type ClaimedJob } from '../../jobs/kinds.js';
import { enqueue } from '../../jobs/outbox.js';
import { emailOwnersOfDisabledEndpoint } from './disabled-notice.js';
import { openWebhookSecret, signWebhook } from './signing.js';
import { postWebhook, resolveWebhookTarget, WebhookTargetRefused } from './outbound.js';
import * as q from './queries.js';

/**
 * Webhook delivery, a job kind of the outbox (server/jobs/): one job per (message, endpoint), with
 * the delivery row's id. The message row and the delivery rows and jobs are written in the
 * transaction of the change they announce (emitWebhookEvent), so a rolled-back change sends
 * nothing and a committed one is always delivered: at least once (a worker killed mid-POST leaves
 * the job leased, and it is sent again when the lease runs out), so receivers dedupe on
 * `webhook-id`, the message id.
 *
 * Retries follow a Svix-like schedule with ±20 % jitter: immediately, then 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 10 h (about 28 h in all), then the delivery is `dead`. An endpoint whose
 * deliveries keep failing for 5 days (no success in between) is disabled, with the reason on it,
 * and its project's owners are emailed (disabled-notice.ts).
 */

export const WEBHOOK_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE_MS.length + 1;
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 86_400_000;
export const WEBHOOK_DISABLED_REASON = 'Disabled after 5 days of failed deliveries with no success in between. Fix the receiver and enable the endpoint again.';

export interface WebhookJobPayload {
  tenancy_id: string;
  delivery_id: string;
}

export type WebhookDelivered = { state: 'sent' } | { state: 'skipped' };

export function webhookBackoff(failedAttempts: number, random: () => number = Math.random): number {
  const base = WEBHOOK_RETRY_SCHEDULE_MS[Math.min(failedAttempts, WEBHOOK_RETRY_SCHEDULE_MS.length) - 1] ?? WEBHOOK_RETRY_SCHEDULE_MS[0]!;
  return Math.round(base * (0.8 + random() * 0.4));
}

/** The signature header: the current secret, and the previous one while its overlap lasts. */
export function signatureHeader(
  rootSecret: string,
  tenancyId: string,
  row: { endpoint_id: string; secret_sealed: string; previous_secret_sealed: string | null; previous_secret_expires_at: Date | null },
  id: string,
  timestamp: number,
  body: string,
  now = new Date(),
): string {
  const secrets = [openWebhookSecret(rootSecret, tenancyId, row.endpoint_id, row.secret_sealed)];
  if (row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > now)
    secrets.push(openWebhookSecret(rootSecret, tenancyId, row.endpoint_id, row.previous_secret_sealed));
  return secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(' ');
}

function refusalText(reason: WebhookTargetRefused['reason']): string {
  if (reason === 'bad-url') return 'The endpoint URL is not a valid http(s) URL.';
  if (reason === 'not-resolved') return 'The endpoint host name does not resolve.';
  return 'The endpoint host resolves to a private, loopback or link-local address, which this deployment does not call (LATCH_WEBHOOKS_ALLOW_PRIVATE).';
}

export const webhookJobKind = defineJobKind<WebhookJobPayload, WebhookDelivered>({
  kind: 'webhook.delivery',
  title: 'webhook delivery',
  maxAttempts: WEBHOOK_MAX_ATTEMPTS,
  backoff: (failedAttempts) => webhookBackoff(failedAttempts),
  parse: (payload) => {
    const p = payload as Partial<WebhookJobPayload> | null;
    if (typeof p?.tenancy_id !== 'string' || typeof p.delivery_id !== 'string') throw new Error('not a webhook delivery');
    return { tenancy_id: p.tenancy_id, delivery_id: p.delivery_id };
  },

  async handle(job, { deps }) {
    const { tenancy_id: tenancyId, delivery_id: deliveryId } = job.payload;
    const row = await q.findDeliveryToSend(deps.db, tenancyId, deliveryId);
    // The endpoint was deleted (its deliveries stay as log rows only if it exists) or disabled.
    if (!row || !row.enabled || row.state !== 'pending') return { state: 'skipped' };
    const record = (fields: { last_status: number | null; last_error: string | null; last_response_snippet: string | null }) =>
      q.recordAttempt(deps.db, tenancyId, deliveryId, { attempts: job.attempts, ...fields });
    let target;
    try {
      target = await resolveWebhookTarget(row.url, deps.env.webhooksAllowPrivate === true);
    } catch (error) {
      if (!(error instanceof WebhookTargetRefused)) throw error;
      const message = refusalText(error.reason);
      await record({ last_status: null, last_error: message, last_response_snippet: null });
      // A name that does not resolve may resolve later; a refused address stays refused.
      throw new JobFailure(message, { permanent: error.reason !== 'not-resolved' });
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': row.message_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(deps.env.secret, tenancyId, row, row.message_id, timestamp, row.payload),
    };
    let response;
    try {
      response = await postWebhook(target, headers, row.payload);
    } catch (error) {
      const message = `The request failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
      await record({ last_status: null, last_error: message, last_response_snippet: null });
      throw new JobFailure(message);
    }
    if (response.status >= 200 && response.status < 300) {
      await record({ last_status: response.status, last_error: null, last_response_snippet: response.snippet });
      return { state: 'sent' };
    }
    const message = response.status >= 300 && response.status < 400 ? `HTTP ${response.status} (redirects are not followed)` : `HTTP ${response.status}`;
    await record({ last_status: response.status, last_error: message, last_response_snippet: response.snippet });
    throw new JobFailure(message);
  },

  settle: (trx, job, settlement, { deps }) => recordOutcome(trx, deps, job, settlement),
});

async function recordOutcome(trx: Executor, deps: Deps, job: ClaimedJob<WebhookJobPayload>, settlement: JobSettlement<WebhookDelivered>): Promise<void> {
  const { tenancy_id: tenancyId, delivery_id: deliveryId } = job.payload;
  if (settlement.status === 'done' && settlement.result.state === 'skipped') return;
  const state = settlement.status === 'done' ? 'sent' : settlement.status === 'dead' ? 'dead' : 'pending';
  await q.settleDelivery(trx, tenancyId, deliveryId, state, job.attempts);
  const endpointId = await q.endpointOfDelivery(trx, tenancyId, deliveryId);
  if (!endpointId) return;
  if (state === 'sent') await q.markEndpointHealthy(trx, tenancyId, endpointId);
  // Disabling is said on the endpoint (disabled_reason, shown in the console) and emailed to the
  // project's owners, in this transaction: once, when the endpoint goes from enabled to disabled.
  else if (await q.markEndpointFailing(trx, tenancyId, endpointId, WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_DISABLED_REASON))
    await emailOwnersOfDisabledEndpoint(trx, deps, tenancyId, endpointId, WEBHOOK_DISABLED_REASON);
}

/** Queues one delivery of a stored message to one endpoint, in the caller's transaction. */
export async function enqueueDelivery(trx: Executor, tenancyId: string, messageId: string, endpointId: string): Promise<string> {
  const id = randomUUID();
  await q.insertDelivery(trx, { tenancy_id: tenancyId, id, message_id: messageId, endpoint_id: endpointId });
  await enqueue(trx, webhookJobKind, { tenancy_id: tenancyId, delivery_id: id }, { id, tenancyId });
  return id;
}
