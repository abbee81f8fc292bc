import { isIPv4, isIPv6 } from 'node:net';
import type { Deps } from '../../deps.js';
import type { Database } from '../../db/kysely.js';
import type { Executor } from '../../db/executor.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { Tenancy } from '../../access/context.js';
import * as q from './queries.js';

/**
 * Brute-force limits (OWASP ASVS 6.3, NIST 800-63B 5.2.2), counted in the database so that every
 * instance on one PostgreSQL enforces the same budget (ARCHITECTURE.md, "Scale-out"). Fixed
 * windows of LATCH_RATE_LIMIT_WINDOW_SECONDS; maxima in env.ts (0 switches a limit off). Past a
 * maximum: RATE_LIMITED (429, Retry-After = seconds until the window ends).
 *
 * Counters are always written with the pool (`deps.db`), never inside a caller's transaction: a
 * failed attempt rolls its transaction back, and the count must survive exactly that.
 */

export interface RateLimit {
  bucket: string;
  key: string;
  /** Attempts allowed per window; 0 = no limit. */
  max: number;
  windowSeconds: number;
}

/** One clean-up in this many hits, of at most CLEAN_UP_BATCH expired rows: the table stays small without a timer. */
const CLEAN_UP_ONE_IN = 50;
const CLEAN_UP_BATCH = 500;

function active(limits: readonly RateLimit[]): RateLimit[] {
  const seen = new Set<string>();
  return limits.filter((limit) => {
    const id = `${limit.bucket}\u0000${limit.key}`;
    if (limit.max <= 0 || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function refuseIfOver(limits: readonly RateLimit[], states: readonly q.CounterState[], over: (count: number, max: number) => boolean): void {
  let retryAfter = 0;
  for (const state of states) {
    const limit = limits.find((l) => l.bucket === state.bucket && l.key === state.key);
    if (limit && over(state.count, limit.max)) retryAfter = Math.max(retryAfter, state.retry_after_seconds);
  }
  if (retryAfter > 0) throw new KnownErrors.RateLimited(retryAfter);
}

async function maybeCleanUp(db: Database): Promise<void> {
  if (Math.random() * CLEAN_UP_ONE_IN < 1) await cleanUpExpiredCounters(db);
}

/** Deletes expired counters (at most one batch). Runs by chance on hits; exported for tests and tools. */
export function cleanUpExpiredCounters(db: Database, batch = CLEAN_UP_BATCH): Promise<number> {
  return q.deleteExpiredCounters(db, batch);
}

/**
 * Counts one attempt against every limit, then refuses it if any count is now over its maximum.
 * Counting before the work (not after a failure) is what makes the limit hold against a burst of
 * concurrent attempts: each one is counted before any of them is judged.
 */
export async function consumeRateLimits(db: Database, limits: readonly RateLimit[]): Promise<void> {
  const live = active(limits);
  if (live.length === 0) return;
  const states = await q.hitCounters(db, live);
  await maybeCleanUp(db);
  refuseIfOver(live, states, (count, max) => count > max);
}

/** Gives back an attempt counted by consumeRateLimits that turned out not to count (a success). */
export async function refundRateLimits(db: Database, limits: readonly RateLimit[]): Promise<void> {
  await q.unhitCounters(db, active(limits));
}

/** Refuses when a limit is already used up, without counting anything (read-only). */
export async function checkRateLimits(db: Database, limits: readonly RateLimit[]): Promise<void> {
  const live = active(limits);
  if (live.length === 0) return;
  refuseIfOver(live, await q.readCounters(db, live), (count, max) => count >= max);
}

/** Counts one attempt without judging it (a failure, after the fact). */
export async function recordRateLimits(db: Database, limits: readonly RateLimit[]): Promise<void> {
  const live = active(limits);
  if (live.length === 0) return;
  await q.hitCounters(db, live);
  await maybeCleanUp(db);
}

/**
 * The key a client IP is counted under. IPv4 as is (also when IPv4-mapped, `::ffff:1.2.3.4`);
 * IPv6 by its /64 prefix, because one subscriber usually holds a whole /64 and could otherwise
 * rotate addresses inside it for a fresh budget each time.
 *
 * @example ipKey('2001:db8:1:2:3:4:5:6') // '2001:db8:1:2::/64'
 */
export function ipKey(ip: string): string {
  // The zone (`fe80::1%eth0`) is cut with indexOf: `/%.*$/` backtracked quadratically on a run of
  // `%` followed by a line break (issue 13 item 2).
  const trimmed = ip.trim().toLowerCase();
  const zone = trimmed.indexOf('%');
  const address = zone >= 0 ? trimmed.slice(0, zone) : trimmed;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  let text = address;
  const embedded = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (embedded) {
    const [a, b, c, d] = embedded[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -embedded[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const groups = right === undefined ? head : [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

function settings(deps: Deps) {
  return deps.env.rateLimits;
}

/**
 * Password sign-in: failed attempts per (email, client IP), then per email from everywhere, and per
 * client IP (one source trying many accounts), per project; then the IP's password-hashing budget
 * (limitPasswordHashing). The per-(email, IP) limit comes first and an attempt it refuses counts
 * nowhere else: one attacker can lock an address out of their own IP, and adds at most
 * `signInPerEmailIp` to the address's global count, so locking its owner out from everywhere takes
 * signInPerEmail / signInPerEmailIp sources (issue 13 item 11). Only attempts that pass the
 * sign-in limits count against the hashing budget: counted before them, the refusals of one
 * locked-out email would use up its IP's budget. A successful password reset or magic-link
 * sign-in clears the address's counters (clearSignInFailures).
 *
 * All of it is one statement (hitCountersInStages: each stage counted only when the stages before
 * it passed), the only round trip before the password check. The attempt is counted up front and
 * given back on success, so only failures use the budget, and a burst of concurrent guesses cannot
 * slip past the limit before the first failure is recorded. The email key does not depend on
 * whether the account exists: a locked-out unknown email looks like a locked-out real one.
 */
export async function limitSignIn(deps: Deps, tenancy: Tenancy, email: string, ip: string | null): Promise<{ succeeded: () => Promise<void> }> {
  const { windowSeconds, signInPerEmail, signInPerEmailIp, signInPerIp } = settings(deps);
  const address = signInEmailKey(tenancy, email);
  const fromThisIp = active(ip ? [{ bucket: 'sign_in_email_ip', key: `${address} ${ipKey(ip)}`, max: signInPerEmailIp, windowSeconds }] : []);
  const wide = active([
    { bucket: 'sign_in_email', key: address, max: signInPerEmail, windowSeconds },
    ...(ip ? [{ bucket: 'sign_in_ip', key: `${tenancy.id}:${ipKey(ip)}`, max: signInPerIp, windowSeconds }] : []),
  ]);
  const hashing = active(passwordHashLimits(deps, tenancy, ip));
  const stages = [fromThisIp, wide, hashing];
  const counted = await q.hitCountersInStages(deps.db, stages);
  await maybeCleanUp(deps.db);
  const signInLimits = [...fromThisIp, ...wide];
  // The first stage that went past a maximum refuses the attempt; the stages after it were not counted.
  for (const [index, stage] of stages.entries()) {
    try {
      refuseIfOver(
        stage,
        counted.filter((c) => c.stage === index),
        (count, max) => count > max,
      );
    } catch (error) {
      // A refused attempt checks no password, so it gives its sign-in counts back: kept, the
      // refusals of one locked-out email piled up on its IP's counter until every sign-in from that
      // IP (a NAT, an office) was refused for the rest of the window (the bench saw 50 concurrent
      // correct sign-ins over 20 accounts lock one email by chance, then all 6,202 sign-ins of the
      // next 10 s). The burst bound holds: only attempts that pass keep their count. A refusal by
      // the hashing budget keeps that count, as limitPasswordHashing does.
      await refundRateLimits(deps.db, index === 0 ? fromThisIp : signInLimits);
      throw error;
    }
  }
  return { succeeded: () => refundRateLimits(deps.db, signInLimits) };
}

function signInEmailKey(tenancy: Tenancy, email: string): string {
  return `${tenancy.id}:${email.trim().toLowerCase()}`;
}

/**
 * Forgets an address's failed sign-ins, from every IP: its owner just proved the mailbox (a
 * password reset or a magic-link sign-in), so the lock-out has done its job and must not keep them
 * out. Per-IP counters (one source, many accounts) are left alone.
 */
export async function clearSignInFailures(deps: Deps, tenancy: Tenancy, email: string): Promise<void> {
  const address = signInEmailKey(tenancy, email);
  await q.deleteCounters(deps.db, 'sign_in_email', { key: address });
  // The space cannot occur in an address: the prefix matches exactly this address's (email, IP) keys.
  await q.deleteCounters(deps.db, 'sign_in_email_ip', { keyPrefix: `${address} ` });
}

/** Wrong second factors (TOTP or recovery codes at POST /auth/mfa/sign-in) one user may send per window. */
export const SECOND_FACTOR_FAILURES_PER_USER = 10;
export const SECOND_FACTOR_WINDOW_SECONDS = 900;

const secondFactorLimit = (tenancy: Tenancy, userId: string): RateLimit => ({
  bucket: 'second_factor_user',
  key: `${tenancy.id}:${userId}`,
  max: SECOND_FACTOR_FAILURES_PER_USER,
  windowSeconds: SECOND_FACTOR_WINDOW_SECONDS,
});

/**
 * A lock-out per user (Better Auth's, NIST SP 800-63B 5.2.2): an attempt code allows 5 tries, but
 * whoever has the password can ask for attempt codes again and again, from many IPs. Past
 * SECOND_FACTOR_FAILURES_PER_USER wrong second factors in the window, the user's MFA sign-ins are
 * refused (RATE_LIMITED) until it ends. Read in the MFA sign-in's transaction, before the factor is
 * checked.
 */
export async function checkSecondFactorFailures(db: Executor, tenancy: Tenancy, userId: string): Promise<void> {
  const limit = secondFactorLimit(tenancy, userId);
  refuseIfOver([limit], await q.readCounters(db, [limit]), (count, max) => count >= max);
}

/** Counts a wrong second factor, in the transaction that commits the attempt code's used try. */
export async function recordSecondFactorFailure(db: Executor, tenancy: Tenancy, userId: string): Promise<void> {
  await q.hitCounters(db, [secondFactorLimit(tenancy, userId)]);
}

/**
 * Verification-code checks and uses, per client IP and project: every check counts (a legitimate
 * flow checks a code two or three times). Must run before the transaction that checks the code.
 */
export async function limitCodeCheck(deps: Deps, tenancy: Tenancy, ip: string | null): Promise<void> {
  if (!ip) return;
  const { windowSeconds, codeChecksPerIp } = settings(deps);
  await consumeRateLimits(deps.db, [{ bucket: 'code_check_ip', key: `${tenancy.id}:${ipKey(ip)}`, max: codeChecksPerIp, windowSeconds }]);
}

/**
 * User/team API-key checks, per calling IP and project. The caller is the project's own backend
 * (server access), which checks every request its API receives: counting successes would throttle
 * the project's real traffic, so only keys that are not found count. On the hot path a successful
 * check costs one indexed read; concurrency may overshoot the limit by the requests in flight,
 * which is harmless here because keys carry ≥ 224 random bits.
 */
/**
 * Answers that reveal whether an address has an account: sign-up's USER_EMAIL_ALREADY_EXISTS, the
 * magic link's SIGN_UP_NOT_ENABLED for an unknown address (when sign-up is off), and a client's
 * CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE. They cannot be made uniform, so they are
 * made scarce: per client IP and project, only revealing answers count, and past the limit every
 * such request is refused (RATE_LIMITED). A person who mistypes an address is far below it; a
 * script walking a list of addresses is stopped after `emailProbesPerIp` per window.
 *
 * Two steps: a read before any lookup (a caller already over the limit costs nothing more), and
 * `revealed()` just before a revealing answer is sent, which counts it with one atomic
 * increment-and-return (consumeRateLimits) and throws RATE_LIMITED instead when the count is past
 * the limit. Counting after the read alone let a parallel burst of 160 get 160 answers against a
 * limit of 100 (issue 13 item 7): every request read the same count before any had recorded.
 */
export async function limitEmailProbes(deps: Deps, tenancy: Tenancy, ip: string | null): Promise<{ revealed: () => Promise<void> }> {
  const { windowSeconds, emailProbesPerIp } = settings(deps);
  const limits: RateLimit[] = ip ? [{ bucket: 'email_probe_ip', key: `${tenancy.id}:${ipKey(ip)}`, max: emailProbesPerIp, windowSeconds }] : [];
  await checkRateLimits(deps.db, limits);
  return { revealed: () => consumeRateLimits(deps.db, limits) };
}

/**
 * Password-reset requests per project and hour, counted for every request whether or not the
 * address has an account, against the project's hourly email limit (LATCH_EMAIL_RATE_LIMIT_PER_HOUR).
 * The outbox count behind every other email counts only emails that were sent, and only known
 * addresses get one: a reset refused by it would have told an unknown address from a known one.
 */
export async function limitPasswordResetRequests(deps: Deps, tenancy: Tenancy): Promise<void> {
  const max = deps.env.email.perProjectPerHour;
  if (max <= 0) return;
  try {
    await consumeRateLimits(deps.db, [{ bucket: 'password_reset_project', key: tenancy.id, max, windowSeconds: 3600 }]);
  } catch (error) {
    if (error instanceof KnownErrors.RateLimited) throw new KnownErrors.EmailRateLimited(error.details.retry_after_seconds, max);
    throw error;
  }
}

export async function limitApiKeyCheck(deps: Deps, tenancy: Tenancy, ip: string | null): Promise<{ failed: () => Promise<void> }> {
  const { windowSeconds, apiKeyChecksPerIp } = settings(deps);
  const limits: RateLimit[] = ip ? [{ bucket: 'api_key_check_ip', key: `${tenancy.id}:${ipKey(ip)}`, max: apiKeyChecksPerIp, windowSeconds }] : [];
  await checkRateLimits(deps.db, limits);
  return { failed: () => recordRateLimits(deps.db, limits) };
}

/**
 * Calls that hash or verify a password (sign-in, sign-up, set, update, reset, a user created or
 * updated with a password), per client IP and project, every attempt counted before the work:
 * argon2id is the costliest thing an unauthenticated caller can ask for. The project's share of
 * the CPU is bounded separately, in process, by its hashing queue (crypto/passwords.ts), which is
 * what keeps one project's flood from slowing the others; this limit keeps one source from using
 * up a project's share. Each item of a tRPC batch is a call of its own and counts as one.
 */
export async function limitPasswordHashing(deps: Deps, tenancy: Tenancy, ip: string | null): Promise<void> {
  await consumeRateLimits(deps.db, passwordHashLimits(deps, tenancy, ip));
}

function passwordHashLimits(deps: Deps, tenancy: Tenancy, ip: string | null): RateLimit[] {
  const { windowSeconds, passwordHashesPerIp } = settings(deps);
  return ip ? [{ bucket: 'password_hash_ip', key: `${tenancy.id}:${ipKey(ip)}`, max: passwordHashesPerIp, windowSeconds }] : [];
}

/**
 * Sign-ups (password and anonymous) per client IP and project, every attempt counted: a new user
 * is storage, and an anonymous one needs nothing else. A password sign-up also counts against
 * limitPasswordHashing's budget, in the same statement.
 */
export async function limitSignUp(deps: Deps, tenancy: Tenancy, ip: string | null, options: { withPassword: boolean }): Promise<void> {
  if (!ip) return;
  const { windowSeconds, signUpsPerIp } = settings(deps);
  const limits: RateLimit[] = [{ bucket: 'sign_up_ip', key: `${tenancy.id}:${ipKey(ip)}`, max: signUpsPerIp, windowSeconds }];
  if (options.withPassword) limits.push(...passwordHashLimits(deps, tenancy, ip));
  await consumeRateLimits(deps.db, limits);
}
