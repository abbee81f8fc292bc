/**
 * Email and password: sign-up, sign-in, changing and setting a password, and the password-reset
 * emails (all levels; the server's `auth.password*` procedures).
 */
import { AppCore, type SignInResult } from '../core.js';
import {
  type ExpectedErrors,
  KnownErrors,
  type Result,
  type SendEmailError,
  VERIFICATION_CODE_ERRORS,
  type VerificationCodeError,
  toResult,
} from '../errors.js';
import { isAnonymousToken } from '../tokens.js';
import type { RouterInputs } from '../transport.js';

export type PasswordSignUpInput = RouterInputs['auth']['passwordSignUp'];
export type PasswordSignInInput = RouterInputs['auth']['passwordSignIn'];
export type PasswordUpdateInput = RouterInputs['auth']['passwordUpdate'];
export type PasswordSetInput = RouterInputs['auth']['passwordSet'];

export type SignUpError = ExpectedErrors<
  | 'UserWithEmailAlreadyExists'
  | 'PasswordRequirementsNotMet'
  | 'PasswordTooShort'
  | 'PasswordTooLong'
  | 'SignUpNotEnabled'
  | 'PasswordAuthenticationNotEnabled'
  | 'RedirectUrlNotWhitelisted'
>;
export type SignInError = ExpectedErrors<'EmailPasswordMismatch' | 'PasswordAuthenticationNotEnabled'>;
export type PasswordUpdateError = ExpectedErrors<
  'PasswordConfirmationMismatch' | 'UserDoesNotHavePassword' | 'PasswordRequirementsNotMet' | 'PasswordTooShort' | 'PasswordTooLong'
>;
export type PasswordSetError = ExpectedErrors<'UserAlreadyHasPassword' | 'PasswordRequirementsNotMet' | 'PasswordTooShort' | 'PasswordTooLong'>;
/** Why `resetPassword` failed: the code, or the new password. */
export type PasswordResetError = VerificationCodeError | ExpectedErrors<'PasswordRequirementsNotMet' | 'PasswordTooShort' | 'PasswordTooLong'>;

const PASSWORD_STRENGTH = [KnownErrors.PasswordRequirementsNotMet, KnownErrors.PasswordTooShort, KnownErrors.PasswordTooLong];
const SIGN_UP_ERRORS = [
  KnownErrors.UserWithEmailAlreadyExists,
  ...PASSWORD_STRENGTH,
  KnownErrors.SignUpNotEnabled,
  KnownErrors.PasswordAuthenticationNotEnabled,
  KnownErrors.RedirectUrlNotWhitelisted,
];
const SIGN_IN_ERRORS = [KnownErrors.EmailPasswordMismatch, KnownErrors.PasswordAuthenticationNotEnabled];
const PASSWORD_UPDATE_ERRORS = [KnownErrors.PasswordConfirmationMismatch, KnownErrors.UserDoesNotHavePassword, ...PASSWORD_STRENGTH];
const PASSWORD_SET_ERRORS = [KnownErrors.UserAlreadyHasPassword, ...PASSWORD_STRENGTH];
const PASSWORD_RESET_ERRORS = [...VERIFICATION_CODE_ERRORS, ...PASSWORD_STRENGTH];

/** Email and password sign-in, and the password itself. */
export abstract class PasswordFeature extends AppCore {
  /**
   * Creates a user with an email and password and signs them in. A signed-in anonymous user is
   * upgraded in place (keeping their data).
   *
   * @example
   * const result = await app.signUpWithPassword({ email: 'ann@example.com', password: 'correct horse' });
   * if (result.status === 'error' && result.error instanceof KnownErrors.UserWithEmailAlreadyExists) …
   */
  async signUpWithPassword(input: PasswordSignUpInput): Promise<Result<SignInResult, SignUpError>> {
    const tokens = await this.session.peek();
    const upgradeAnonymous = isAnonymousToken(tokens.accessToken) || (tokens.refreshToken !== null && tokens.accessToken === null);
    return toResult(
      this.startSession(this.call((context) => this.trpc.auth.passwordSignUp.mutate(input, { context }), { access: 'client', session: upgradeAnonymous })),
      SIGN_UP_ERRORS,
    );
  }

  /**
   * Signs in with an email and password. A wrong email or password is returned, not thrown.
   *
   * @example
   * const result = await app.signInWithPassword({ email, password });
   * if (result.status === 'error') showError(result.error.message); // 'Wrong e-mail or password.'
   */
  async signInWithPassword(input: PasswordSignInInput): Promise<Result<SignInResult, SignInError>> {
    await this.session.peek(); // an app without a token store fails here, before a session is made
    return toResult(this.startSession(this.call((context) => this.trpc.auth.passwordSignIn.mutate(input, { context }), { access: 'client' })), SIGN_IN_ERRORS);
  }

  /**
   * Changes the signed-in user's password (their other sessions are signed out).
   *
   * @example
   * const result = await app.updatePassword({ old_password: 'old one', new_password: 'a new one' });
   * if (result.status === 'error') console.log(result.error.message); // 'Passwords do not match.'
   */
  async updatePassword(input: PasswordUpdateInput): Promise<Result<void, PasswordUpdateError>> {
    const update = this.call((context) => this.trpc.auth.passwordUpdate.mutate(input, { context }), { session: true }).then(() => {
      this.invalidate(['users.', 'sessions.']);
    });
    return toResult(update, PASSWORD_UPDATE_ERRORS);
  }

  /**
   * Sets a first password for a user who has none (signed up anonymously upgraded by OAuth, or created by the server).
   *
   * @example
   * await app.setPassword({ password: 'correct horse' });
   */
  async setPassword(input: PasswordSetInput): Promise<Result<void, PasswordSetError>> {
    const set = this.call((context) => this.trpc.auth.passwordSet.mutate(input, { context }), { session: true }).then(() => {
      this.invalidate(['users.']);
    });
    return toResult(set, PASSWORD_SET_ERRORS);
  }

  // ─── Password reset ────────────────────────────────────────────────────────────────────────────

  /**
   * Emails a password-reset link to `email` (`callbackUrl?code=…`; default: the
   * `urls.passwordReset` page, which must be a trusted domain of the project). The answer is the
   * same whether or not the address has an account; an untrusted callback URL is returned as an error.
   *
   * @example
   * const result = await app.sendForgotPasswordEmail('ann@example.com', { callbackUrl: 'https://app.example.com/handler/password-reset' });
   * if (result.status === 'error') showError(result.error.message); // KnownErrors.RedirectUrlNotWhitelisted
   */
  async sendForgotPasswordEmail(email: string, options: { callbackUrl?: string } = {}): Promise<Result<void, SendEmailError>> {
    const body = { email, callback_url: this.callbackUrl(options.callbackUrl, 'passwordReset', 'sendForgotPasswordEmail') };
    return this.sendLinkEmail((context) => this.trpc.auth.passwordSendResetCode.mutate(body, { context }));
  }

  /**
   * Checks a password-reset code (from the `code` parameter of the emailed link) without using
   * it, e.g. before showing the new-password form. Counts as an attempt.
   *
   * @example
   * const code = new URL(location.href).searchParams.get('code')!;
   * const check = await app.verifyPasswordResetCode(code);
   * if (check.status === 'error') showError(check.error.message); // e.g. KnownErrors.VerificationCodeExpired
   */
  async verifyPasswordResetCode(code: string): Promise<Result<void, VerificationCodeError>> {
    const check = this.call((context) => this.trpc.auth.passwordResetCheckCode.mutate({ code }, { context })).then(() => undefined);
    return toResult(check, VERIFICATION_CODE_ERRORS);
  }

  /**
   * Sets a new password with a reset code. Every session of that user ends (sign in again with
   * the new password), the emailed address counts as verified, and the user's other reset links
   * stop working. A bad code or a password that breaks the rules is returned as an error.
   *
   * @example
   * const result = await app.resetPassword({ code, password: 'a new password' });
   * if (result.status === 'ok') await app.signInWithPassword({ email, password: 'a new password' });
   */
  async resetPassword(input: { code: string; password: string }): Promise<Result<void, PasswordResetError>> {
    const reset = this.call((context) => this.trpc.auth.passwordReset.mutate({ code: input.code, password: input.password }, { context })).then(() => {
      this.invalidate(['users.', 'sessions.', 'contactChannels.']);
    });
    return toResult(reset, PASSWORD_RESET_ERRORS);
  }
}
