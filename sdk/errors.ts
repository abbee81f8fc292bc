/**
 * Errors the SDK throws or returns. Known errors are the server's own catalogue classes
 * (`contract/errors/known-errors.ts`, a pure module shared with the server), so
 * `e instanceof KnownErrors.EmailPasswordMismatch` works on both sides of the wire. The few errors
 * that never come from the server (network, assertion, misuse) are small classes defined here.
 */
import { KnownError } from '../contract/errors/known-error.js';
import { KnownErrors, type KnownErrorOf, knownErrorFromBody } from '../contract/errors/known-errors.js';

export { KnownError } from '../contract/errors/known-error.js';
export {
  KnownErrors,
  isKnownErrorInGroup,
  knownErrorGroups,
  knownErrorsByCode,
  type KnownErrorCode,
  type KnownErrorGroupName,
  type KnownErrorOf,
} from '../contract/errors/known-errors.js';

/** The exact text of the spec ("Client behaviour on responses"). */
export const OFFLINE_MESSAGE = 'You are offline. Please check your internet connection and try again.';

/**
 * The request never got an HTTP response: the server is down, the URL is wrong, or the device is
 * offline (then `offline` is true and the message is {@link OFFLINE_MESSAGE}).
 *
 * @example
 * try { await app.getUser(); } catch (e) { if (e instanceof LatchNetworkError && e.offline) showOfflineBanner(); }
 */
export class LatchNetworkError extends Error {
  override name = 'LatchNetworkError';
  constructor(
    message: string,
    readonly offline: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The response broke the wire contract: its `x-latch-known-error` header names another code than
 * its body, or an error response is not Latch's JSON (a proxy's HTML page, say). Never expected
 * from a Latch server; it means something between the SDK and the server rewrote the response.
 *
 * @example
 * if (e instanceof LatchAssertionError) reportBug(e);
 */
export class LatchAssertionError extends Error {
  override name = 'LatchAssertionError';
}

/**
 * Thrown by `getUser({ or: 'throw' })` when nobody (or only an anonymous user) is signed in.
 *
 * @example
 * try { await app.getUser({ or: 'throw' }); } catch (e) { if (e instanceof UserNotSignedInError) … }
 */
export class UserNotSignedInError extends Error {
  override name = 'UserNotSignedInError';
  constructor() {
    super('User is not signed in but getUser was called with { or: throw }');
  }
}

/**
 * The outcome of a call whose expected failures are part of its contract (wrong password, email
 * taken…): the spec's "returned as a result error". Unexpected failures are still thrown.
 *
 * @example
 * const result = await app.signInWithPassword({ email, password });
 * if (result.status === 'error') form.setError(result.error.message); // KnownErrors.EmailPasswordMismatch
 */
export type Result<T, E extends Error = KnownError> = { status: 'ok'; data: T } | { status: 'error'; error: E };

/** Any catalogue class: what a Result-returning method lists as its expected errors. */
export type KnownErrorClass = abstract new (...args: never[]) => KnownError;

// ─── Expected failures that several features return as results ──────────────────────────────────

/** The catalogue classes of these codes' names: what a Result-returning method lists as expected. */
export type ExpectedErrors<K extends keyof typeof KnownErrors> = KnownErrorOf<K>;

/** Why an emailed code (reset, magic link, verification, team invitation) did not work: not found (or withdrawn), expired, already used, or out of attempts. */
export type VerificationCodeError = ExpectedErrors<
  'VerificationCodeError' | 'VerificationCodeNotFound' | 'VerificationCodeExpired' | 'VerificationCodeAlreadyUsed' | 'VerificationCodeMaxAttemptsReached'
>;
export const VERIFICATION_CODE_ERRORS = [
  KnownErrors.VerificationCodeError,
  KnownErrors.VerificationCodeNotFound,
  KnownErrors.VerificationCodeExpired,
  KnownErrors.VerificationCodeAlreadyUsed,
  KnownErrors.VerificationCodeMaxAttemptsReached,
];

/** Why `sendForgotPasswordEmail` / `sendContactChannelVerificationEmail` did not send: the callback URL is not a trusted domain. */
export type SendEmailError = ExpectedErrors<'RedirectUrlNotWhitelisted'>;
export const SEND_EMAIL_ERRORS = [KnownErrors.RedirectUrlNotWhitelisted];

/**
 * Runs `call`; a known error that is an instance of one of `expected` becomes `{status: 'error'}`,
 * anything else is rethrown.
 */
export async function toResult<T, E extends KnownError>(call: Promise<T>, expected: readonly KnownErrorClass[]): Promise<Result<T, E>> {
  try {
    return { status: 'ok', data: await call };
  } catch (error) {
    if (expected.some((cls) => error instanceof cls)) return { status: 'error', error: error as E };
    throw error;
  }
}

/**
 * Runs `call`; a known error that is an instance of one of `absent` (what was asked for is not
 * there) becomes null, anything else is rethrown: what every `get…` that answers null does.
 */
export async function orNull<T>(call: Promise<T>, absent: readonly KnownErrorClass[]): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    if (absent.some((cls) => error instanceof cls)) return null;
    throw error;
  }
}

/** The `error` of a tRPC client error, as much of it as we read. */
interface TrpcClientErrorLike {
  name: string;
  cause?: unknown;
  data?: { latch?: { code: string; error: string; details?: unknown } } | null;
}

/** The SDK's error for a tRPC error envelope: its known error (unknown codes: UNSUPPORTED_ERROR), else an assertion error. */
export function errorOfTrpcShape(error: { message?: string; data?: unknown }): Error {
  const latch = (error.data as TrpcClientErrorLike['data'])?.latch;
  if (latch && typeof latch.code === 'string') return knownErrorFromBody({ code: latch.code, error: String(latch.error), details: latch.details });
  return new LatchAssertionError(`Unexpected response from the Latch server: ${error.message}`);
}

/**
 * Turns what a call threw into the SDK's error: the transport's own errors pass as they are; a
 * tRPC client error (from a tRPC client someone passes) becomes its known error, or its cause.
 */
export function toLatchError(error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'TRPCClientError') return error;
  const trpcError = error as Error & TrpcClientErrorLike;
  if (!trpcError.data?.latch && trpcError.cause instanceof Error) return trpcError.cause;
  return errorOfTrpcShape(trpcError);
}
