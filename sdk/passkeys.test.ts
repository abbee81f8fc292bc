import { WebAuthnError } from '@simplewebauthn/browser';
import { describe, expect, it } from 'vitest';
import { ClientApp, KnownErrors } from './index.js';
import { WEBAUTHN_ERROR_MESSAGES, toPasskeyWebAuthnError } from './features/passkeys.js';

/**
 * The SDK's side of passkeys that needs no browser: the spec's WebAuthn error mapping (section 5)
 * and the refusal where WebAuthn does not exist. The ceremonies themselves run in Chromium
 * (react-ui/passkeys.browser.test.ts).
 */
describe('WebAuthn error mapping', () => {
  const cases = [
    ['ERROR_CEREMONY_ABORTED', 'The passkey request was cancelled or timed out.'],
    ['ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED', 'This device already has a passkey for this account.'],
    ['ERROR_INVALID_DOMAIN', WEBAUTHN_ERROR_MESSAGES.ERROR_INVALID_DOMAIN],
    ['ERROR_INVALID_RP_ID', 'The relying-party ID is not valid for this domain.'],
    ['ERROR_INVALID_USER_ID_LENGTH', 'The user ID of a passkey must be 1 to 64 bytes long.'],
    ['ERROR_AUTHENTICATOR_NO_SUPPORTED_PUBKEYCREDPARAMS_ALG', WEBAUTHN_ERROR_MESSAGES.ERROR_AUTHENTICATOR_NO_SUPPORTED_PUBKEYCREDPARAMS_ALG],
  ] as const;
  it.each(cases)('%s becomes PASSKEY_WEBAUTHN_ERROR with its message and code', (code, message) => {
    const error = toPasskeyWebAuthnError(new WebAuthnError({ message: 'browser words', code, cause: new Error('cause') }));
    expect(error).toBeInstanceOf(KnownErrors.PasskeyWebAuthnError);
    expect(error.code).toBe('PASSKEY_WEBAUTHN_ERROR');
    expect(error.message).toBe(message);
    expect(error.details).toEqual({ message, code });
  });

  it("keeps the browser's own message for the rest, and an AbortError is an aborted ceremony", () => {
    const passthrough = toPasskeyWebAuthnError(
      new WebAuthnError({ message: 'The operation either timed out or was not allowed.', code: 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY', cause: new Error('x') }),
    );
    expect(passthrough.details).toEqual({ message: 'The operation either timed out or was not allowed.', code: 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY' });
    const notAllowed = Object.assign(new Error('The user denied it.'), { name: 'NotAllowedError' });
    expect(toPasskeyWebAuthnError(notAllowed).details.code).toBe('ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY');
    const aborted = Object.assign(new Error('aborted'), { name: 'AbortError' });
    expect(toPasskeyWebAuthnError(aborted).details.code).toBe('ERROR_CEREMONY_ABORTED');
  });
});

describe('without WebAuthn', () => {
  it('signInWithPasskey and registerPasskey return PASSKEY_WEBAUTHN_ERROR before calling the server', async () => {
    // Port 9 (discard): a call that got this far would fail with a network error instead.
    const app = new ClientApp({ projectId: 'p', publishableClientKey: 'pck_x', baseUrl: 'http://127.0.0.1:9', tokenStore: 'memory' });
    for (const result of [await app.signInWithPasskey(), await app.registerPasskey()]) {
      expect(result.status).toBe('error');
      if (result.status !== 'error') continue;
      expect(result.error).toBeInstanceOf(KnownErrors.PasskeyWebAuthnError);
      expect((result.error as InstanceType<typeof KnownErrors.PasskeyWebAuthnError>).details.code).toBe('ERROR_WEBAUTHN_NOT_SUPPORTED');
    }
  });
});
