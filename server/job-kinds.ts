import { emailJobKind } from './domains/emails/delivery.js';
import { sendEmailJobKind } from './domains/emails/send/job.js';
import { stripeEventJobKind } from './domains/payments/stripe-events.js';
import { JobRegistry } from './jobs/kinds.js';
import { webhookJobKind } from './domains/webhooks/delivery.js';

/**
 * Every kind of job this instance runs (server/jobs/), as router.ts lists every domain's
 * procedures: a new kind (outbound webhooks, payment-provider events) is defined in its domain
 * with defineJobKind and added here. An instance claims only the kinds listed, so during a
 * rolling upgrade an older instance leaves a newer kind's jobs to the instances that know it.
 */
export const JOB_KINDS = new JobRegistry([emailJobKind, sendEmailJobKind, webhookJobKind, stripeEventJobKind]);
