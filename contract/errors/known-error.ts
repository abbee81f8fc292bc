/**
 * The base of every catalogued error. A known error is part of the wire contract: its `code`
 * travels in the body and in the `x-latch-known-error` header, its `status` is the HTTP status,
 * and its `details` are typed per code. Pure module: no imports, so the SDK can share it.
 */
export type ErrorDetails = Record<string, unknown> | undefined;

export class KnownError<D extends ErrorDetails = ErrorDetails> extends Error {
  override name: string = 'KnownError';
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details: D,
  ) {
    super(message);
  }

  /** The JSON body sent on the wire: `{code, details?, error}`. */
  toBody(): { code: string; details?: Record<string, unknown>; error: string } {
    return this.details === undefined ? { code: this.code, error: this.message } : { code: this.code, details: this.details, error: this.message };
  }
}

/** A class per code, so callers can `instanceof` it and construct it with typed details. */
export interface KnownErrorClass<C extends string, A extends unknown[], D extends ErrorDetails> {
  new (...args: A): KnownError<D> & { readonly code: C };
  readonly code: C;
  readonly status: number;
}

/**
 * Declares one catalogued error.
 *
 * @example
 * const UserNotFound = defineKnownError('USER_NOT_FOUND', 404, () => ({ message: 'User not found.' }));
 * throw new UserNotFound();
 * const PasswordTooShort = defineKnownError('PASSWORD_TOO_SHORT', 400, (min: number) => ({
 *   message: `Password too short. Minimum length is ${min}.`, details: { min_length: min },
 * }));
 */
/* @__NO_SIDE_EFFECTS__ */
export function defineKnownError<C extends string, A extends unknown[], D extends ErrorDetails = undefined>(
  code: C,
  status: number,
  build: (...args: A) => { message: string; details?: D },
): KnownErrorClass<C, A, D> {
  const cls = class extends KnownError<D> {
    static readonly code = code;
    static readonly status = status;
    override readonly code = code;
    constructor(...args: A) {
      const { message, details } = build(...args);
      super(code, status, message, details as D);
      this.name = code;
    }
  };
  return cls as unknown as KnownErrorClass<C, A, D>;
}

/**
 * Declares an error whose message never varies and that carries no details: most of the catalogue.
 * The message is a constant, so it is built once here instead of in a function per class.
 *
 * @example
 * const UserNotFound = defineFixedError('USER_NOT_FOUND', 404, 'User not found.');
 */
/* @__NO_SIDE_EFFECTS__ */
export function defineFixedError<C extends string>(code: C, status: number, message: string): KnownErrorClass<C, [], undefined> {
  return defineKnownError(code, status, () => ({ message }));
}

/**
 * Declares an error whose message is given where it is thrown: a family's parent (with a fallback
 * message, so the argument is optional) or an error that relays another component's text (a
 * WebAuthn ceremony, a CLI login). It carries no details.
 *
 * @example
 * const RefreshTokenError = defineMessageError('REFRESH_TOKEN_ERROR', 401, 'The refresh token could not be used. Sign in again.');
 * throw new RefreshTokenError(); // the fallback message
 */
export function defineMessageError<C extends string>(code: C, status: number): KnownErrorClass<C, [message: string], undefined>;
export function defineMessageError<C extends string>(code: C, status: number, fallback: string): KnownErrorClass<C, [message?: string], undefined>;
/* @__NO_SIDE_EFFECTS__ */
export function defineMessageError<C extends string>(code: C, status: number, fallback?: string): KnownErrorClass<C, [message?: string], undefined> {
  return defineKnownError(code, status, (message?: string) => ({ message: message ?? fallback ?? '' }));
}
