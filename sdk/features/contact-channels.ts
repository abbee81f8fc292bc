/** Contact channels (a user's email addresses) and their verification emails (all levels; server code names any user). */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { CONTACT_CHANNEL_DATA } from '../core.js';
import {
  type ExpectedErrors,
  KnownErrors,
  type Result,
  type SendEmailError,
  VERIFICATION_CODE_ERRORS,
  type VerificationCodeError,
  toResult,
} from '../errors.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';
import { type ClientUser, CurrentUserFeature } from './users.js';

/** A contact channel of a user (an email address; one of them is the primary email). */
export type ContactChannel = RouterOutputs['contactChannels']['list']['items'][number];
/** A new contact channel (`is_verified` is for server code only). */
export type ContactChannelCreateInput = Omit<RouterInputs['contactChannels']['create'], 'user_id'>;
/** A change of a contact channel: a new `value` is unverified again; `is_primary` moves the primary email. */
export type ContactChannelUpdateInput = Omit<RouterInputs['contactChannels']['update'], 'user_id' | 'contact_channel_id'>;
/** Why `verifyEmail` failed: the code, or the address is verified already. */
export type VerifyEmailError = VerificationCodeError | ExpectedErrors<'EmailAlreadyVerified'>;

const VERIFY_EMAIL_ERRORS = [...VERIFICATION_CODE_ERRORS, KnownErrors.EmailAlreadyVerified];

/** Email verification and contact channels (`sendVerificationEmail` reads the user, hence {@link CurrentUserFeature}). */
export abstract class ContactChannelsFeature<U extends ClientUser = ClientUser> extends CurrentUserFeature<U> {
  // ─── Email verification ────────────────────────────────────────────────────────────────────────

  /**
   * Verifies an email address with the code of its verification link (no signed-in user needed).
   * A bad code, or an address verified already, is returned as an error.
   *
   * @example
   * const result = await app.verifyEmail(new URL(location.href).searchParams.get('code')!);
   * render(result.status === 'ok' ? 'Email verified' : result.error.message);
   */
  async verifyEmail(code: string): Promise<Result<void, VerifyEmailError>> {
    const verify = this.call((context) => this.trpc.contactChannels.verify.mutate({ code }, { context })).then(() => {
      this.invalidate(CONTACT_CHANNEL_DATA);
    });
    return toResult(verify, VERIFY_EMAIL_ERRORS);
  }

  /**
   * Emails a verification link for the signed-in user's primary email (`callbackUrl?code=…`;
   * default: the `urls.emailVerification` page). The link's page calls {@link ContactChannelsFeature.verifyEmail}.
   *
   * @example
   * await app.sendVerificationEmail({ callbackUrl: 'https://app.example.com/handler/email-verification' });
   */
  async sendVerificationEmail(options: { callbackUrl?: string } = {}): Promise<Result<void, SendEmailError>> {
    const callbackUrl = this.callbackUrl(options.callbackUrl, 'emailVerification', 'sendVerificationEmail');
    const user = await this.getUser({ or: 'throw' });
    if (!user.primary_email) throw new Error('The signed-in user has no primary email to verify.');
    const body = { email: user.primary_email, callback_url: callbackUrl };
    return this.sendLinkEmail((context) => this.trpc.contactChannels.sendVerificationCode.mutate(body, { context }), { session: true });
  }

  // ─── Contact channels ──────────────────────────────────────────────────────────────────────────

  /**
   * A user's contact channels as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.contactChannelsQuery(), (state) => console.log(state.data?.map((c) => c.value)));
   */
  contactChannelsQuery(options: { userId?: string } = {}): LatchQuery<ContactChannel[]> {
    return this.userListQuery(options.userId, 'contactChannels.list', (input, context) => this.trpc.contactChannels.list.query(input, { context }));
  }

  /**
   * A user's contact channels (default: the signed-in user's; server code names any user).
   *
   * @example
   * const unverified = (await app.listContactChannels()).filter((c) => !c.is_verified);
   */
  async listContactChannels(options: { userId?: string } = {}): Promise<ContactChannel[]> {
    return this.queryClient.fetchQuery(this.contactChannelsQuery(options));
  }

  /**
   * Adds an email to a user (default: the signed-in user; clients add unverified channels). A
   * value another user signs in with cannot be `used_for_auth` (a 409); `is_primary` makes it
   * the primary email.
   *
   * @example
   * const channel = await app.createContactChannel({ type: 'email', value: 'ann@work.example', used_for_auth: false });
   * await app.sendContactChannelVerificationEmail(channel.id);
   */
  async createContactChannel(input: ContactChannelCreateInput, options: { userId?: string } = {}): Promise<ContactChannel> {
    const body = { ...input, user_id: options.userId ?? 'me' };
    const created = await this.call((context) => this.trpc.contactChannels.create.mutate(body, { context }), { session: this.sessionFor(options.userId) });
    this.invalidate(CONTACT_CHANNEL_DATA);
    return created;
  }

  /**
   * Changes a contact channel: a new `value` is unverified again, `is_primary: true` makes it the
   * primary email, `used_for_auth` lets the user sign in with it.
   *
   * @example
   * await app.updateContactChannel(channel.id, { is_primary: true });
   */
  async updateContactChannel(contactChannelId: string, patch: ContactChannelUpdateInput, options: { userId?: string } = {}): Promise<ContactChannel> {
    const body = { ...patch, user_id: options.userId ?? 'me', contact_channel_id: contactChannelId };
    const updated = await this.call((context) => this.trpc.contactChannels.update.mutate(body, { context }), { session: this.sessionFor(options.userId) });
    this.invalidate(CONTACT_CHANNEL_DATA);
    return updated;
  }

  /**
   * Removes a contact channel (removing the primary one leaves the user without a primary email).
   *
   * @example
   * await app.deleteContactChannel(channel.id);
   */
  async deleteContactChannel(contactChannelId: string, options: { userId?: string } = {}): Promise<void> {
    const body = { user_id: options.userId ?? 'me', contact_channel_id: contactChannelId };
    await this.call((context) => this.trpc.contactChannels.delete.mutate(body, { context }), { session: this.sessionFor(options.userId) });
    this.invalidate(CONTACT_CHANNEL_DATA);
  }

  /**
   * Emails a verification link for one contact channel (`callbackUrl?code=…`; default: the
   * `urls.emailVerification` page, a trusted domain of the project). A verified channel is a 409
   * (EMAIL_ALREADY_VERIFIED, thrown).
   *
   * @example
   * const sent = await app.sendContactChannelVerificationEmail(channel.id, { callbackUrl: 'https://app.example.com/handler/email-verification' });
   */
  async sendContactChannelVerificationEmail(
    contactChannelId: string,
    options: { callbackUrl?: string; userId?: string } = {},
  ): Promise<Result<void, SendEmailError>> {
    const body = {
      user_id: options.userId ?? 'me',
      contact_channel_id: contactChannelId,
      callback_url: this.callbackUrl(options.callbackUrl, 'emailVerification', 'sendContactChannelVerificationEmail'),
    };
    return this.sendLinkEmail((context) => this.trpc.contactChannels.sendChannelVerificationCode.mutate(body, { context }), {
      session: this.sessionFor(options.userId),
    });
  }
}
