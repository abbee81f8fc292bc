/**
 * CLI login (spec section 4, "CLI login"; README "CLI login"): `promptCliLogin` for the command
 * line program, and the three calls of the app's /handler/cli-auth-confirm page.
 */
import { AppCore } from '../core.js';
import { type ExpectedErrors, KnownErrors, type Result, toResult } from '../errors.js';

/** Why a CLI login ended without a token: expired, already used, denied / timed out (CliAuthError), or an unknown polling code. */
export type CliLoginError = ExpectedErrors<'CliAuthError' | 'CliAuthExpiredError' | 'CliAuthUsedError' | 'InvalidPollingCode'>;
/** Why the confirm page cannot act on a login code: unknown (CliAuthError), expired, or already decided. */
export type CliConfirmError = ExpectedErrors<'CliAuthError' | 'CliAuthExpiredError' | 'CliAuthUsedError'>;

const CLI_CONFIRM_ERRORS = [KnownErrors.CliAuthError, KnownErrors.CliAuthExpiredError, KnownErrors.CliAuthUsedError];

/** The spec's default wait between two polls (section 9, "CLI poll default wait"). */
export const CLI_POLL_DEFAULT_WAIT_MILLIS = 2000;

/** What a CLI may keep to resume its login after a restart (the polling code is all it needs). */
export interface CliLoginRequestInfo {
  pollingCode: string;
  /** The confirm page's URL, the same the prompt showed. */
  url: string;
  /** Unix milliseconds. */
  expiresAt: number;
}

export interface PromptCliLoginOptions {
  /** The app's base URL: the link is `${appUrl}/handler/cli-auth-confirm?login_code=…`. */
  appUrl: string;
  /** Polls before giving up with 'Timed out waiting for CLI authentication.' (default: until the request expires). */
  maxAttempts?: number;
  /** Wait between polls (default 2000 ms). */
  waitTimeMillis?: number;
  /** Shows the link to the user (default: printed with console.log). The second argument is what to keep to resume. */
  promptLink?: (url: string, request: CliLoginRequestInfo) => void | Promise<void>;
  /** How long the request lives (server default 10 minutes, at most 1 hour). */
  expiresInMillis?: number;
  /** Resume polling a request made before (a CLI restarted after showing the link): no new request, no prompt. */
  pollingCode?: string;
}

export interface CliLoginDetails {
  status: 'waiting' | 'approved' | 'denied';
  /** Which app asks: the project's display name. */
  projectDisplayName: string;
  requestedAt: Date;
  requesterIp: string | null;
  expiresAt: Date;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CLI login: the command line side and the confirm page's side. */
export abstract class CliFeature extends AppCore {
  /**
   * Logs a command line program in through the browser: asks the server for a login request, shows
   * the confirm link (`promptLink`, default console.log), then polls every `waitTimeMillis` until
   * the user approves on the app's /handler/cli-auth-confirm page. Returns the refresh token of a
   * new session made for this CLI (not the browser's); give it to a `ClientApp` as its token
   * store. A poll the server finds too fast (RATE_LIMITED) is waited out, not an error.
   *
   * @example
   * const result = await app.promptCliLogin({ appUrl: 'https://app.example.com' });
   * if (result.status === 'error') console.error(result.error.message); // 'CLI authentication request expired. Please try again.'
   * else await saveToken(result.data);
   */
  async promptCliLogin(options: PromptCliLoginOptions): Promise<Result<string, CliLoginError>> {
    const wait = options.waitTimeMillis ?? CLI_POLL_DEFAULT_WAIT_MILLIS;
    let pollingCode = options.pollingCode;
    if (!pollingCode) {
      const input = options.expiresInMillis === undefined ? {} : { expires_in_millis: options.expiresInMillis };
      const created = await this.call((context) => this.trpc.auth.cliCreate.mutate(input, { context }), { access: 'client' });
      pollingCode = created.polling_code;
      const url = `${options.appUrl.replace(/\/+$/, '')}/handler/cli-auth-confirm?login_code=${encodeURIComponent(created.login_code)}`;
      const request = { pollingCode, url, expiresAt: created.expires_at };
      if (options.promptLink) await options.promptLink(url, request);
      else console.log(`Please visit the following URL to authenticate:\n${url}`);
    }
    const body = { polling_code: pollingCode };
    for (let attempt = 0; attempt < (options.maxAttempts ?? Infinity); attempt++) {
      try {
        const polled = await this.call((context) => this.trpc.auth.cliPoll.mutate(body, { context }), { access: 'client' });
        if (polled.status === 'success' && polled.refresh_token) return { status: 'ok', data: polled.refresh_token };
        await sleep(wait);
      } catch (error) {
        // The spec's exact texts for expired and used; a denial keeps the server's message.
        if (error instanceof KnownErrors.CliAuthExpiredError) return { status: 'error', error: new KnownErrors.CliAuthExpiredError() };
        if (error instanceof KnownErrors.CliAuthUsedError) return { status: 'error', error: new KnownErrors.CliAuthUsedError() };
        if (error instanceof KnownErrors.CliAuthError || error instanceof KnownErrors.InvalidPollingCode) return { status: 'error', error };
        if (error instanceof KnownErrors.RateLimited) {
          await sleep(Math.max(wait, error.details.retry_after_seconds * 1000));
          continue;
        }
        throw error;
      }
    }
    return { status: 'error', error: new KnownErrors.CliAuthError('Timed out waiting for CLI authentication.') };
  }

  /**
   * The confirm page: what the login code asks for (which app, when, from which IP), for the
   * signed-in user. Decides nothing.
   *
   * @example
   * const details = await app.getCliLoginRequest(new URL(location.href).searchParams.get('login_code')!);
   */
  async getCliLoginRequest(loginCode: string): Promise<Result<CliLoginDetails, CliConfirmError>> {
    return this.decideCliLogin(loginCode, 'check');
  }

  /**
   * Approves a CLI login as the signed-in user: the CLI's next poll gets a new session of this
   * user (this browser's session is not shared). Once per login code.
   *
   * @example
   * const result = await app.approveCliLogin(loginCode);
   */
  async approveCliLogin(loginCode: string): Promise<Result<CliLoginDetails, CliConfirmError>> {
    return this.decideCliLogin(loginCode, 'complete');
  }

  /**
   * Refuses a CLI login: the CLI's next poll ends in CliAuthError.
   *
   * @example
   * await app.denyCliLogin(loginCode);
   */
  async denyCliLogin(loginCode: string): Promise<Result<CliLoginDetails, CliConfirmError>> {
    return this.decideCliLogin(loginCode, 'deny');
  }

  private async decideCliLogin(loginCode: string, mode: 'check' | 'complete' | 'deny'): Promise<Result<CliLoginDetails, CliConfirmError>> {
    const call = this.call((context) => this.trpc.auth.cliComplete.mutate({ login_code: loginCode, mode }, { context }), { session: true }).then(
      (res): CliLoginDetails => ({
        status: res.status,
        projectDisplayName: res.project_display_name,
        requestedAt: new Date(res.requested_at),
        requesterIp: res.requester_ip,
        expiresAt: new Date(res.expires_at),
      }),
    );
    if (mode !== 'check')
      void call.then(
        () => this.invalidate(['sessions.']),
        () => undefined,
      );
    return toResult(call, CLI_CONFIRM_ERRORS);
  }
}
