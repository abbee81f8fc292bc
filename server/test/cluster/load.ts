import { randomBytes } from 'node:crypto';
import { type Headers_, type Project, call } from '../child-server.js';

/**
 * A steady load through the balancer, with a client that retries what a client should retry
 * (a refused or cut connection, 502/503/504) and records every answer: how many requests, the
 * failures by code, the writes that were acknowledged (to look for in the database afterwards),
 * and when the last failure and the first success after it happened (the recovery time).
 */

export interface LoadReport {
  requests: number;
  /** Failed attempts by code: Latch's catalogued code, NON_JSON_<status> (a balancer's page), NETWORK, TIMEOUT. */
  errors: Record<string, number>;
  /** Users whose sign-up was answered 200. */
  signUps: { userId: string; email: string; mailed: boolean }[];
  /** Teams whose creation was answered 201. */
  teams: string[];
  /** Sign-ups retried after an ambiguous failure that then found the email taken (committed, unacknowledged). */
  ambiguous: number;
  lastFailureAt: number | null;
  firstSuccessAfterFailureAt: number | null;
}

/** A request gets this long to answer; past it, it counts as a hang (TIMEOUT). */
const REQUEST_TIMEOUT_MS = 20_000;
/** A retried request gives up after this long. */
const RETRY_DEADLINE_MS = 60_000;
const PASSWORD = 'cluster-password-1';

export class Load {
  readonly report: LoadReport = {
    requests: 0,
    errors: {},
    signUps: [],
    teams: [],
    ambiguous: 0,
    lastFailureAt: null,
    firstSuccessAfterFailureAt: null,
  };
  private stopped = false;
  private readonly workers: Promise<void>[];

  constructor(
    private readonly base: string,
    private readonly project: Project,
    concurrency = 6,
  ) {
    this.workers = Array.from({ length: concurrency }, (_, i) => this.worker(i));
  }

  /** Stops after the iterations under way, and returns the report. */
  async stop(): Promise<LoadReport> {
    this.stopped = true;
    await Promise.all(this.workers);
    return this.report;
  }

  private fail(code: string): void {
    this.report.errors[code] = (this.report.errors[code] ?? 0) + 1;
    this.report.lastFailureAt = Date.now();
    this.report.firstSuccessAfterFailureAt = null;
  }

  /** One request, retried on a transient failure; the final answer (2xx or a refusal that retrying cannot fix). */
  private async send(
    pathname: string,
    options: { method?: string; headers: Headers_; body?: unknown },
  ): Promise<{ status: number; body: any; retried: boolean }> {
    const deadline = Date.now() + RETRY_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      this.report.requests++;
      let code: string;
      try {
        const res = await call(this.base, pathname, { ...options, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        if (res.status < 500) {
          if (this.report.lastFailureAt !== null && this.report.firstSuccessAfterFailureAt === null) this.report.firstSuccessAfterFailureAt = Date.now();
          return { ...res, retried: attempt > 0 };
        }
        code = `${res.status} ${String(res.body?.code ?? 'unknown')}`;
      } catch (error) {
        code = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? 'TIMEOUT' : 'NETWORK';
      }
      this.fail(code);
      if (Date.now() > deadline) throw new Error(`${pathname} still failing (${code}) after ${RETRY_DEADLINE_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100 + attempt * 100));
    }
  }

  private async worker(index: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const email = `load-${index}-${n}-${randomBytes(3).toString('hex')}@example.com`;
      // Every fourth sign-up queues a verification email: a job of the outbox, run by any instance.
      const mailed = n % 4 === 0;
      const signUp = await this.send('/auth/password/sign-up', {
        headers: this.project.client(),
        body: { email, password: PASSWORD, ...(mailed ? { verification_callback_url: 'http://localhost:3000/handler/email-verification' } : {}) },
      });
      if (signUp.status !== 200) {
        // A retry after a failure that had in fact committed finds the email taken.
        if (signUp.retried && signUp.body?.code === 'USER_EMAIL_ALREADY_EXISTS') {
          this.report.ambiguous++;
          continue;
        }
        throw new Error(`sign-up answered ${signUp.status} ${JSON.stringify(signUp.body)}`);
      }
      this.report.signUps.push({ userId: signUp.body.user_id, email, mailed });
      const me = await this.send('/users/me', { headers: this.project.client(signUp.body.access_token) });
      if (me.status !== 200) throw new Error(`/users/me answered ${me.status} ${JSON.stringify(me.body)}`);
      const refreshed = await this.send('/auth/sessions/current/refresh', {
        method: 'POST',
        headers: { ...this.project.client(), 'x-latch-refresh-token': signUp.body.refresh_token },
      });
      if (refreshed.status !== 200) throw new Error(`refresh answered ${refreshed.status} ${JSON.stringify(refreshed.body)}`);
      const team = await this.send('/teams', {
        headers: this.project.server(),
        body: { display_name: `team ${index}-${n}`, creator_user_id: signUp.body.user_id },
      });
      if (team.status !== 201) throw new Error(`team creation answered ${team.status} ${JSON.stringify(team.body)}`);
      this.report.teams.push(team.body.id);
      const signIn = await this.send('/auth/password/sign-in', { headers: this.project.client(), body: { email, password: PASSWORD } });
      if (signIn.status !== 200) throw new Error(`sign-in answered ${signIn.status} ${JSON.stringify(signIn.body)}`);
    }
  }
}

/** The report's figures in one line, for the test output. */
export function describeLoad(label: string, report: LoadReport, extra: Record<string, unknown> = {}): string {
  return `[cluster] ${label}: ${JSON.stringify({
    requests: report.requests,
    errors: report.errors,
    signUpsAcknowledged: report.signUps.length,
    teamsAcknowledged: report.teams.length,
    ambiguousSignUps: report.ambiguous,
    ...extra,
  })}`;
}
