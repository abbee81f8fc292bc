/** Magic links and one-time codes: sign-in (and sign-up) by an emailed link or 6-character code (all levels). */
import { AppCore, type SignInResult } from '../core.js';
import { type ExpectedErrors, KnownErrors, type Result, VERIFICATION_CODE_ERRORS, type VerificationCodeError, toResult } from '../errors.js';

/** Why `sendMagicLinkEmail` did not send: untrusted callback URL, or a new address while sign-up is disabled. */
export type MagicLinkSendError = ExpectedErrors<'RedirectUrlNotWhitelisted' | 'SignUpNotEnabled'>;
/** Why `signInWithMagicLink` failed: the code, or a new address while sign-up is disabled. */
export type MagicLinkSignInError = VerificationCodeError | ExpectedErrors<'SignUpNotEnabled'>;

const MAGIC_LINK_SEND_ERRORS = [KnownErrors.RedirectUrlNotWhitelisted, KnownErrors.SignUpNotEnabled];
const MAGIC_LINK_SIGN_IN_ERRORS = [...VERIFICATION_CODE_ERRORS, KnownErrors.SignUpNotEnabled];

/** Sign-in by magic link or one-time code. */
export abstract class MagicLinkFeature extends AppCore {
  /**
   * Emails a sign-in link (`callbackUrl?code=…`; default: the `urls.magicLinkCallback` page) and a
   * 6-character code, when the project has `magic_link_enabled`. An address without an account
   * gets one on sign-in (when sign-up is enabled). Returns the nonce: keep it in this browser, as a
   * typed code is sent with it (`signInWithMagicLink(typed, { nonce })`).
   *
   * @example
   * const sent = await app.sendMagicLinkEmail('ann@example.com', { callbackUrl: 'https://app.example.com/handler/magic-link-callback' });
   * if (sent.status === 'ok') sessionStorage.setItem('latch-nonce', sent.data.nonce);
   */
  async sendMagicLinkEmail(email: string, options: { callbackUrl?: string } = {}): Promise<Result<{ nonce: string }, MagicLinkSendError>> {
    const body = { email, callback_url: this.callbackUrl(options.callbackUrl, 'magicLinkCallback', 'sendMagicLinkEmail') };
    const send = this.call((context) => this.trpc.auth.otpSendSignInCode.mutate(body, { context }), { access: 'client' }).then((sent) => {
      this.invalidate(['emails.']);
      return { nonce: sent.nonce };
    });
    return toResult(send, MAGIC_LINK_SEND_ERRORS);
  }

  /**
   * Signs in with a magic link's code (the `code` parameter of the link), or with the typed
   * 6-character code and the nonce of `sendMagicLinkEmail`, and stores the session like the other
   * sign-ins. `is_new_user` is true when the address had no account (it has now, verified).
   *
   * @example
   * const result = await app.signInWithMagicLink(new URL(location.href).searchParams.get('code')!);
   * const typed = await app.signInWithMagicLink('A1B2C3', { nonce: sessionStorage.getItem('latch-nonce')! });
   * if (result.status === 'ok' && result.data.is_new_user) showWelcome();
   */
  async signInWithMagicLink(code: string, options: { nonce?: string } = {}): Promise<Result<SignInResult, MagicLinkSignInError>> {
    await this.session.peek(); // an app without a token store fails here, before a session is made
    const body = { code: code + (options.nonce ?? '') };
    return toResult(
      this.startSession(this.call((context) => this.trpc.auth.otpSignIn.mutate(body, { context }), { access: 'client' })),
      MAGIC_LINK_SIGN_IN_ERRORS,
    );
  }
}
