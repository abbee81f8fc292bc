import type { Deps } from '../../deps.js';
import * as q from './queries.js';
import { type EmailBody, openEmailBody } from './sealed-body.js';

const UNREADABLE_BODY = 'The email body could not be decrypted (was LATCH_SECRET changed?).';
import { OutboundRefused } from './public-address.js';
import { type SmtpTarget, SmtpPools, isPermanentSmtpFailure, pinTarget, smtpErrorText, smtpFailure, targetForProject } from './transport.js';

/**
 * The outbox worker: delivers pending emails over SMTP, retries temporary failures with
 * exponential backoff, and records every outcome on the row (sent, failed with the server's error,
 * or not-delivered when no SMTP server is configured: those stay readable in the console).
 *
 * Every instance of Latch runs one. They share the outbox safely: rows are claimed with
 * FOR UPDATE SKIP LOCKED and leased (queries.ts, claimDueEmails), so each attempt is made by one
 * worker. On PGlite there is one connection and one process, so there is nothing to contend with.
 */

export interface EmailWorkerOptions {
  /** How long to sleep when the outbox has nothing due. */
  pollIntervalMs: number;
  /** Emails claimed (and sent concurrently) per round. */
  batchSize?: number;
  /** Attempts before an email that keeps failing temporarily is marked failed. */
  maxAttempts?: number;
  /** Wait after the first failure; doubled after each further one (with ±25% jitter), at most an hour. */
  retryBaseMs?: number;
  /** How long a claimed email is reserved for the worker that claimed it. */
  leaseMs?: number;
}

export const EMAIL_MAX_ATTEMPTS = 5;
export const EMAIL_RETRY_BASE_MS = 30_000;
const MAX_RETRY_DELAY_MS = 3_600_000;

/** No SMTP server for this email: said on the row, so the console can tell the owner what to set. */
export const NOT_DELIVERED_REASON = 'No SMTP server is configured: set LATCH_SMTP_URL for the deployment, or give the project its own email server (email_config type standard).';
/** The deployment has a shared server, but LATCH_SHARED_EMAIL does not let this project use it. */
export const SHARED_NOT_ALLOWED_REASON = 'This deployment does not send this project\'s emails through its shared SMTP server (LATCH_SHARED_EMAIL): give the project its own email server (email_config type standard), or ask the operator to opt it in.';

/** Delay before attempt `attempt + 1`, after `attempt` failed ones. */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
  return Math.round(exponential * (0.75 + random() * 0.5));
}

/** Where one project's emails go this round: a pinned server, a refused one, or why nowhere. */
type Destination = SmtpTarget | OutboundRefused | string;

async function destinationOf(deps: Deps, project: q.SendingProject | null): Promise<Destination> {
  const target = targetForProject(deps, project);
  if (!target) return project && project.emailConfig.type === 'shared' && deps.env.email.smtpUrl ? SHARED_NOT_ALLOWED_REASON : NOT_DELIVERED_REASON;
  try {
    // An owner-chosen host is resolved, checked and pinned here, with the same rule as the test
    // email: a saved config cannot reach an address the test email would have refused.
    return await pinTarget(target);
  } catch (error) {
    if (error instanceof OutboundRefused) return error;
    throw error;
  }
}

export class EmailWorker {
  private readonly pools = new SmtpPools();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly options: Required<EmailWorkerOptions>;

  constructor(private readonly deps: Deps, options: EmailWorkerOptions) {
    this.options = {
      batchSize: 8,
      maxAttempts: EMAIL_MAX_ATTEMPTS,
      retryBaseMs: EMAIL_RETRY_BASE_MS,
      leaseMs: 5 * 60_000,
      ...options,
    };
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops polling, waits for the round in flight, and closes the SMTP connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.pools.close();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runOnce()
        .then((claimed) => this.schedule(claimed >= this.options.batchSize ? 0 : this.options.pollIntervalMs))
        .catch((error: unknown) => {
          if (!this.stopped) this.deps.log.error('email worker round failed', { error: error instanceof Error ? error.message : String(error) });
          this.schedule(this.options.pollIntervalMs);
        });
    }, delayMs);
    // The worker alone never keeps the process alive.
    this.timer.unref();
  }

  /** One round: claims due emails and delivers them. Returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = await q.claimDueEmails(this.deps.db, this.options.batchSize, this.options.leaseMs);
    if (claimed.length === 0) return 0;
    // One resolution per project and round: an owner-chosen host is resolved, checked and pinned
    // here (pinTarget), with the same rule as the test email, so a saved config cannot reach a
    // private address that the test email would have refused.
    const targets = new Map<string, Promise<Destination>>();
    const targetOf = (tenancyId: string | null) => {
      const key = tenancyId ?? '';
      let target = targets.get(key);
      if (!target) {
        target = (tenancyId ? q.findSendingProject(this.deps.db, tenancyId) : Promise.resolve(null)).then((project) => destinationOf(this.deps, project));
        targets.set(key, target);
      }
      return target;
    };
    await Promise.all(claimed.map(async (row) => this.deliver(row, await targetOf(row.tenancy_id))));
    return claimed.length;
  }

  private async deliver(row: q.OutboxRow, destination: Destination): Promise<void> {
    if (destination instanceof OutboundRefused) {
      // A refused address or port stays refused until the owner changes the config: not retried.
      // A name that does not resolve may resolve later: retried like a connection failure.
      await this.recordFailure(row, destination, destination.reason !== 'not-resolved');
      return;
    }
    if (typeof destination === 'string') {
      await q.recordOutcome(this.deps.db, row, { state: 'not-delivered', error: destination });
      return;
    }
    const target = destination;
    let body: EmailBody;
    try {
      body = openEmailBody(this.deps.env.secret, row.id, row);
    } catch {
      // Sealed under another LATCH_SECRET (or altered): it can never be sent; say so, do not retry.
      await q.recordOutcome(this.deps.db, row, { state: 'failed', error: UNREADABLE_BODY });
      return;
    }
    try {
      await this.pools.send(target, { id: row.id, to: row.to_email, subject: row.subject, ...body });
      await q.recordOutcome(this.deps.db, row, { state: 'sent' });
    } catch (error) {
      await this.recordFailure(row, error, isPermanentSmtpFailure(error));
    }
  }

  /**
   * The row keeps a generic reason (smtpFailure), never the server's own words: the project's
   * admins read it, and the server is whatever host the owner named. The operator's log has the
   * full text.
   */
  private async recordFailure(row: q.OutboxRow, error: unknown, permanent: boolean): Promise<void> {
    const shown = smtpFailure(error).message;
    const logged = { email_id: row.id, attempts: row.attempts, error: smtpErrorText(error) };
    if (row.attempts >= this.options.maxAttempts || permanent) {
      this.deps.log.warn('email delivery failed for good', logged);
      await q.recordOutcome(this.deps.db, row, { state: 'failed', error: shown });
    } else {
      this.deps.log.info('email delivery failed, will retry', logged);
      const retryAt = new Date(Date.now() + retryDelayMs(row.attempts, this.options.retryBaseMs));
      await q.recordOutcome(this.deps.db, row, { state: 'pending', error: shown, retryAt });
    }
  }
}

/** Starts the worker of this instance (server/start.ts stops it on close). */
export function startEmailWorker(deps: Deps, options: EmailWorkerOptions = { pollIntervalMs: deps.env.email.pollIntervalMs }): EmailWorker {
  const worker = new EmailWorker(deps, options);
  worker.start();
  return worker;
}
