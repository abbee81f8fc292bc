import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AccessType } from '../../../contract/access-type.js';
import type { Tenancy } from '../../access/context.js';
import type { Executor } from '../../db/executor.js';
import { hitCounters } from '../rate-limits/queries.js';
import { consumeRateLimits, ipKey, limitPasswordResetRequests, type RateLimit } from '../rate-limits/service.js';
import * as q from './queries.js';

/**
 * Who may make a project send how much mail. Anyone on the internet can ask a project to email an
 * address they name (a magic link, a password reset, a sign-up's verification), so, in this order,
 * before the project's budget is touched:
 *
 * 1. per client IP (LATCH_EMAIL_RATE_LIMIT_PER_IP, client access only: a project's backend and its
 *    owner call from one IP for all their users) and per recipient address
 *    (LATCH_EMAIL_RATE_LIMIT_PER_RECIPIENT, every access type: nobody's inbox is flooded): RATE_LIMITED;
 * 2. the client share: mail caused by client requests may use LATCH_EMAIL_CLIENT_SHARE_PERCENT of
 *    the project's hourly budget, so the rest stays for what the project's backend and owner send
 *    (server and admin access: invitations, sign-in invitations, verification they trigger), and a
 *    flood of client requests cannot silence those for an hour: EMAIL_RATE_LIMITED;
 * 3. the project's hourly budget (LATCH_EMAIL_RATE_LIMIT_PER_HOUR, counted from the outbox): EMAIL_RATE_LIMITED.
 *
 * Counted in the caller's transaction: an action that fails (or is refused by a later limit) rolls
 * its counts back, so a refused request uses no budget and a count is one email queued. All
 * windows are an hour, counted in the database (every instance sees the same counts).
 */

const HOUR = 3600;
const CLIENT_SHARE_BUCKET = 'email_client_share';

/** Who asks for the email: its project's tenancy and, when known, the access type of the request. */
export interface MailCaller {
  tenancy: Tenancy;
  /** `client` requests count against the client share and the per-IP limit; absent counts as server. */
  type?: AccessType;
}

/** The most emails client requests may cause per hour; null when there is no hourly budget. */
export function clientShareLimit(settings: Deps['env']['email']): number | null {
  const total = settings.perProjectPerHour;
  if (total <= 0) return null;
  return Math.floor((total * settings.clientSharePercent) / 100);
}

/** Counts one hit on each limit with the given executor and refuses (RATE_LIMITED) when any is over. */
async function hitAndJudge(db: Executor, limits: readonly RateLimit[]): Promise<void> {
  const live = limits.filter((limit) => limit.max > 0);
  if (live.length === 0) return;
  const states = await hitCounters(db, live);
  let retryAfter = 0;
  for (const state of states) {
    const limit = live.find((l) => l.bucket === state.bucket && l.key === state.key);
    if (limit && state.count > limit.max) retryAfter = Math.max(retryAfter, state.retry_after_seconds);
  }
  if (retryAfter > 0) throw new KnownErrors.RateLimited(retryAfter);
}

function senderLimits(deps: Deps, caller: MailCaller, to: string, ip: string | null): RateLimit[] {
  const { perIpPerHour, perRecipientPerHour } = deps.env.email;
  const limits: RateLimit[] = [];
  if (ip && caller.type === 'client') limits.push({ bucket: 'email_ip', key: `${caller.tenancy.id}:${ipKey(ip)}`, max: perIpPerHour, windowSeconds: HOUR });
  limits.push({ bucket: 'email_recipient', key: `${caller.tenancy.id}:${to.trim().toLowerCase()}`, max: perRecipientPerHour, windowSeconds: HOUR });
  return limits;
}

/** Step 2: one more email of the client share, or EMAIL_RATE_LIMITED. */
async function consumeClientShare(db: Executor, deps: Deps, tenancy: Tenancy): Promise<void> {
  const max = clientShareLimit(deps.env.email);
  if (max === null) return;
  // A share of 0 means client requests may send nothing at all (not "no limit", as 0 means elsewhere).
  const [state] = await hitCounters(db, [{ bucket: CLIENT_SHARE_BUCKET, key: tenancy.id, windowSeconds: HOUR }]);
  if (state && state.count > max) throw new KnownErrors.EmailRateLimited(state.retry_after_seconds, max);
}

/**
 * EMAIL_RATE_LIMITED when the project has queued its hourly allowance (LATCH_EMAIL_RATE_LIMIT_PER_HOUR),
 * counted from the outbox itself (concurrent sends may overshoot by the few in flight).
 */
export async function checkProjectBudget(db: Executor, deps: Deps, tenancy: Tenancy): Promise<void> {
  const limit = deps.env.email.perProjectPerHour;
  if (limit <= 0) return;
  const { count, oldest } = await q.recentEmailCount(db, tenancy.id);
  if (count < limit) return;
  const freesAt = (oldest?.getTime() ?? Date.now()) + 3_600_000;
  throw new KnownErrors.EmailRateLimited(Math.max(1, Math.ceil((freesAt - Date.now()) / 1000)), limit);
}

/**
 * Every limit on one email to `to`, in order (see the top of this file), counted in the caller's
 * transaction `trx`. queueEmail calls it; a flow that must refuse before it looks anything up
 * (the magic link, whose answer must not depend on the address having an account) calls it first
 * and queues with `limitedByCaller`.
 */
export async function consumeMailLimits(trx: Executor, deps: Deps, caller: MailCaller, to: string, ip: string | null): Promise<void> {
  await hitAndJudge(trx, senderLimits(deps, caller, to, ip));
  if (caller.type === 'client') await consumeClientShare(trx, deps, caller.tenancy);
  await checkProjectBudget(trx, deps, caller.tenancy);
}

/**
 * A password-reset request, counted whether or not the address has an account (the answer must
 * not tell them apart, so neither may the limits): per IP and recipient, then the client share
 * for client requests, or the reset budget of server requests (limitPasswordResetRequests).
 * Counted with the pool, before the request's own transaction: an unknown address has no
 * transaction that could commit the count.
 */
export async function limitResetRequest(deps: Deps, caller: MailCaller, email: string, ip: string | null): Promise<void> {
  await consumeRateLimits(deps.db, senderLimits(deps, caller, email, ip));
  if (caller.type !== 'client') return limitPasswordResetRequests(deps, caller.tenancy);
  await consumeClientShare(deps.db, deps, caller.tenancy);
}

/**
 * Test emails (POST /internal/send-test-email), per project and per caller (the owner's user id
 * when the console calls, else the client IP): each one opens a connection to a host the caller
 * chose, so even with the address rule (public-address.ts) it must not become a scanner.
 */
export async function limitTestEmails(deps: Deps, tenancy: Tenancy, caller: { adminUserId: string | null; ip: string | null }): Promise<void> {
  const max = deps.env.email.testSendsPerHour;
  const limits: RateLimit[] = [{ bucket: 'test_email_project', key: tenancy.id, max, windowSeconds: HOUR }];
  // Not per project: an owner with many projects (or many keys) has one budget.
  const who = caller.adminUserId ? `user:${caller.adminUserId}` : caller.ip ? `ip:${ipKey(caller.ip)}` : null;
  if (who) limits.push({ bucket: 'test_email_caller', key: who, max, windowSeconds: HOUR });
  await consumeRateLimits(deps.db, limits);
}
