/**
 * Passkeys (WebAuthn) in the browser: sign in with one (a button, or the browser's autofill on an
 * input with `autocomplete="username webauthn"`), add one to the signed-in user, and list, rename
 * and delete them. Several passkeys per user. Uses @simplewebauthn/browser (browser-safe, no deps).
 */
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, WebAuthnError } from '@simplewebauthn/browser';
import { PASSKEY_RP_ID_PLACEHOLDER } from '../../contract/validation/passkeys.js';
import type { LatchQuery } from '../cache.js';
import { AppCore, type SignInResult, USER_DATA } from '../core.js';
import { type ExpectedErrors, KnownErrors, type Result, VERIFICATION_CODE_ERRORS, type VerificationCodeError, toResult } from '../errors.js';
import type { RouterOutputs } from '../transport.js';

type WebAuthnBrowser = typeof import('@simplewebauthn/browser');
/** @simplewebauthn/browser, loaded on the first passkey call: an app that never uses passkeys does not load it up front. */
let webauthnModule: WebAuthnBrowser | undefined;
async function webauthn(): Promise<WebAuthnBrowser> {
  return (webauthnModule ??= await import('@simplewebauthn/browser'));
}

/** One of a user's passkeys: name, the host it works on, created and last-used times. */
export type Passkey = RouterOutputs['passkeys']['list']['items'][number];

/**
 * Why `signInWithPasskey` failed: the server refused the passkey (unknown here, wrong origin,
 * turned off), the browser's ceremony failed (PasskeyWebAuthnError, with the WebAuthn code),
 * the challenge expired or was used, passkeys are off for the project, or the user has two-factor
 * authentication on (MultiFactorAuthenticationRequired: continue on the mfa page).
 */
export type PasskeySignInError =
  | ExpectedErrors<'PasskeyAuthenticationFailed' | 'PasskeyWebAuthnError' | 'PasskeyAuthenticationNotEnabled' | 'MultiFactorAuthenticationRequired'>
  | VerificationCodeError;
/** Why `registerPasskey` failed: the server refused it, the browser's ceremony failed, the challenge, or passkeys are off. */
export type PasskeyRegistrationError =
  ExpectedErrors<'PasskeyRegistrationFailed' | 'PasskeyWebAuthnError' | 'PasskeyAuthenticationNotEnabled'> | VerificationCodeError;

const PASSKEY_SIGN_IN_ERRORS = [
  KnownErrors.PasskeyAuthenticationFailed,
  KnownErrors.PasskeyWebAuthnError,
  KnownErrors.PasskeyAuthenticationNotEnabled,
  KnownErrors.MultiFactorAuthenticationRequired,
  ...VERIFICATION_CODE_ERRORS,
];
const PASSKEY_REGISTRATION_ERRORS = [
  KnownErrors.PasskeyRegistrationFailed,
  KnownErrors.PasskeyWebAuthnError,
  KnownErrors.PasskeyAuthenticationNotEnabled,
  ...VERIFICATION_CODE_ERRORS,
];

const PASSKEY_DATA = ['passkeys.', ...USER_DATA] as const;

/** The code of a ceremony failure that happened in the browser (PasskeyWebAuthnError's details.code). */
export type PasskeyWebAuthnCode = WebAuthnError['code'] | 'ERROR_WEBAUTHN_NOT_SUPPORTED' | 'ERROR_INVALID_RP_ID_PLACEHOLDER' | 'ERROR_NO_HOSTNAME';

/**
 * What each WebAuthn failure says (spec section 5, "Passkey registration": ceremony aborted,
 * previously registered, invalid domain, invalid RP ID, user ID length 1 to 64, no supported
 * algorithm, and the rest with the browser's own message).
 */
export const WEBAUTHN_ERROR_MESSAGES: Partial<Record<PasskeyWebAuthnCode, string>> = {
  ERROR_CEREMONY_ABORTED: 'The passkey request was cancelled or timed out.',
  ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED: 'This device already has a passkey for this account.',
  ERROR_INVALID_DOMAIN: 'This page is not on a valid domain for passkeys (use HTTPS, or localhost while developing).',
  ERROR_INVALID_RP_ID: 'The relying-party ID is not valid for this domain.',
  ERROR_INVALID_USER_ID_LENGTH: 'The user ID of a passkey must be 1 to 64 bytes long.',
  ERROR_AUTHENTICATOR_NO_SUPPORTED_PUBKEYCREDPARAMS_ALG: 'This authenticator supports none of the signature algorithms the server accepts.',
  ERROR_MALFORMED_PUBKEYCREDPARAMS: 'The passkey options are malformed.',
  ERROR_AUTHENTICATOR_MISSING_DISCOVERABLE_CREDENTIAL_SUPPORT: 'This authenticator cannot store a passkey (no discoverable credentials).',
  ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT: 'This authenticator cannot verify who you are (no PIN or biometrics).',
  ERROR_WEBAUTHN_NOT_SUPPORTED: 'This browser does not support passkeys (WebAuthn).',
  ERROR_INVALID_RP_ID_PLACEHOLDER: 'The server sent an unexpected relying-party ID.',
  ERROR_NO_HOSTNAME: 'Passkeys need a page with a hostname.',
};

/** A ceremony failure in the browser as the catalogued PASSKEY_WEBAUTHN_ERROR (details: message, code). */
export function toPasskeyWebAuthnError(error: unknown): InstanceType<typeof KnownErrors.PasskeyWebAuthnError> {
  if (error instanceof KnownErrors.PasskeyWebAuthnError) return error;
  // A WebAuthnError of @simplewebauthn/browser, known by its ERROR_ code (the module may not be loaded here).
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string' && code.startsWith('ERROR_')) {
    return new KnownErrors.PasskeyWebAuthnError(WEBAUTHN_ERROR_MESSAGES[code as PasskeyWebAuthnCode] ?? error.message, code as WebAuthnError['code']);
  }
  const named = error as { name?: unknown; message?: unknown } | null;
  // startRegistration/startAuthentication rethrow what they do not recognise (a NotAllowedError
  // after a failed user verification, a timeout): keep the browser's words.
  const message = typeof named?.message === 'string' && named.message !== '' ? named.message : 'The passkey request failed.';
  const name = typeof named?.name === 'string' ? named.name : 'Error';
  return new KnownErrors.PasskeyWebAuthnError(message, name === 'AbortError' ? 'ERROR_CEREMONY_ABORTED' : 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY');
}

/**
 * The server's options with the RP-ID placeholder replaced by this page's hostname (spec section
 * 5): the ID must be exactly the placeholder, and the page must have a hostname.
 */
function withOwnRpId<T extends { rpId?: string; rp?: { id?: string } }>(options: T, kind: 'create' | 'get'): T {
  const sent = kind === 'create' ? options.rp?.id : options.rpId;
  if (sent !== PASSKEY_RP_ID_PLACEHOLDER) {
    throw new KnownErrors.PasskeyWebAuthnError(WEBAUTHN_ERROR_MESSAGES.ERROR_INVALID_RP_ID_PLACEHOLDER!, 'ERROR_INVALID_RP_ID_PLACEHOLDER');
  }
  const hostname = typeof window === 'undefined' ? '' : window.location.hostname;
  if (!hostname) throw new KnownErrors.PasskeyWebAuthnError(WEBAUTHN_ERROR_MESSAGES.ERROR_NO_HOSTNAME!, 'ERROR_NO_HOSTNAME');
  return kind === 'create' ? { ...options, rp: { ...options.rp, id: hostname } } : { ...options, rpId: hostname };
}

async function requireWebAuthn(): Promise<WebAuthnBrowser> {
  const browser = await webauthn();
  if (browser.browserSupportsWebAuthn()) return browser;
  throw new KnownErrors.PasskeyWebAuthnError(WEBAUTHN_ERROR_MESSAGES.ERROR_WEBAUTHN_NOT_SUPPORTED!, 'ERROR_WEBAUTHN_NOT_SUPPORTED');
}

/** Passkey sign-in and the signed-in user's passkeys. */
export abstract class PasskeysFeature extends AppCore {
  /**
   * Whether this browser can offer passkeys in an input's autofill (conditional mediation).
   *
   * @example
   * if (await app.passkeyAutofillSupported()) void app.signInWithPasskey({ autofill: true });
   */
  async passkeyAutofillSupported(): Promise<boolean> {
    const browser = await webauthn();
    return browser.browserSupportsWebAuthn() && (await browser.browserSupportsWebAuthnAutofill());
  }

  /**
   * Cancels this page's pending passkey request (a waiting autofill), e.g. when the sign-in form
   * goes away. Its `signInWithPasskey` then returns ERROR_CEREMONY_ABORTED.
   *
   * @example
   * useEffect(() => () => app.cancelPasskeyRequest(), []);
   */
  cancelPasskeyRequest(): void {
    // Nothing to cancel before the module is loaded: a ceremony needs it.
    webauthnModule?.WebAuthnAbortService.cancelCeremony();
  }

  /**
   * Signs in with a passkey (the project needs `passkey_enabled`). With `autofill`, the browser
   * offers the passkeys in the autofill of an input with `autocomplete="username webauthn"` (it
   * must be on the page) and this resolves when the user picks one; a later `signInWithPasskey`
   * aborts a pending autofill (its result is then ERROR_CEREMONY_ABORTED). A user with two-factor
   * authentication gets MultiFactorAuthenticationRequired (with the attempt code).
   *
   * @example
   * const result = await app.signInWithPasskey();
   * if (result.status === 'error') show(result.error.message);
   */
  async signInWithPasskey(options: { autofill?: boolean } = {}): Promise<Result<SignInResult, PasskeySignInError>> {
    await this.session.peek(); // an app without a token store fails here, before a session is made
    const run = async () => {
      const { startAuthentication } = await requireWebAuthn();
      const started = await this.call((context) => this.trpc.auth.passkeyInitiateAuthentication.mutate({}, { context }), { access: 'client' });
      const optionsJSON = withOwnRpId(started.options_json as unknown as PublicKeyCredentialRequestOptionsJSON, 'get');
      let response;
      try {
        response = await startAuthentication({ optionsJSON, useBrowserAutofill: options.autofill ?? false });
      } catch (error) {
        throw toPasskeyWebAuthnError(error);
      }
      // Spread: the extension outputs are a plain object on the wire.
      const body = { authentication_response: { ...response, clientExtensionResults: { ...response.clientExtensionResults } }, code: started.code };
      return this.startSession(this.call((context) => this.trpc.auth.passkeySignIn.mutate(body, { context }), { access: 'client' }));
    };
    return toResult(run(), PASSKEY_SIGN_IN_ERRORS);
  }

  /**
   * Adds a passkey to the signed-in user (several are fine: one per device). `name` labels it in
   * the account settings ("Passkey N" otherwise). The user may then sign in with passkeys.
   *
   * @example
   * const added = await app.registerPasskey({ name: 'Work laptop' });
   * if (added.status === 'error') show(added.error.message);
   */
  async registerPasskey(options: { name?: string } = {}): Promise<Result<Passkey, PasskeyRegistrationError>> {
    const run = async () => {
      const { startRegistration } = await requireWebAuthn();
      const started = await this.call((context) => this.trpc.auth.passkeyInitiateRegistration.mutate({}, { context }), { session: true });
      const optionsJSON = withOwnRpId(started.options_json as unknown as PublicKeyCredentialCreationOptionsJSON, 'create');
      let credential;
      try {
        credential = await startRegistration({ optionsJSON });
      } catch (error) {
        throw toPasskeyWebAuthnError(error);
      }
      const body = {
        credential: { ...credential, clientExtensionResults: { ...credential.clientExtensionResults } },
        code: started.code,
        ...(options.name ? { name: options.name } : {}),
      };
      const passkey = await this.call((context) => this.trpc.auth.passkeyRegister.mutate(body, { context }), { session: true });
      this.invalidate(PASSKEY_DATA);
      return passkey;
    };
    return toResult(run(), PASSKEY_REGISTRATION_ERRORS);
  }

  /**
   * A user's passkeys as a cached query (default: the signed-in user's).
   *
   * @example
   * app.subscribe(() => app.passkeysQuery(), (state) => render(state.data ?? []));
   */
  passkeysQuery(options: { userId?: string } = {}): LatchQuery<Passkey[]> {
    return this.userListQuery(options.userId, 'passkeys.list', (input, context) => this.trpc.passkeys.list.query(input, { context }));
  }

  /**
   * A user's passkeys, oldest first (default: the signed-in user's; server code names any user).
   *
   * @example
   * for (const p of await app.listPasskeys()) console.log(p.name, new Date(p.last_used_at_millis ?? p.created_at_millis));
   */
  async listPasskeys(options: { userId?: string } = {}): Promise<Passkey[]> {
    return this.queryClient.fetchQuery(this.passkeysQuery(options));
  }

  /**
   * Renames a passkey (1 to 64 characters).
   *
   * @example
   * await app.renamePasskey(passkey.id, 'Phone');
   */
  async renamePasskey(passkeyId: string, name: string, options: { userId?: string } = {}): Promise<Passkey> {
    const body = { user_id: options.userId ?? 'me', passkey_id: passkeyId, name };
    const renamed = await this.call((context) => this.trpc.passkeys.update.mutate(body, { context }), { session: this.sessionFor(options.userId) });
    this.invalidate(PASSKEY_DATA);
    return renamed;
  }

  /**
   * Deletes a passkey. From a client this needs a recent sign-in (within 5 minutes; otherwise
   * RECENT_SIGN_IN_REQUIRED is thrown: sign in again). Deleting the last one turns passkey
   * sign-in off for the user.
   *
   * @example
   * await app.deletePasskey(passkey.id);
   */
  async deletePasskey(passkeyId: string, options: { userId?: string } = {}): Promise<void> {
    const body = { user_id: options.userId ?? 'me', passkey_id: passkeyId };
    await this.call((context) => this.trpc.passkeys.delete.mutate(body, { context }), { session: this.sessionFor(options.userId) });
    this.invalidate(PASSKEY_DATA);
  }
}
