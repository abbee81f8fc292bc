/**
 * A software WebAuthn authenticator for server tests (no browser): an ES256 key pair per
 * credential, `none` attestation, and assertions signed exactly as an authenticator signs them
 * (authenticatorData || SHA-256(clientDataJSON)). The flags (user present / verified, backed up)
 * and the signature counter are the test's to choose, so the server's checks of each can be hit.
 * The browser tests (react-ui/passkeys.browser.test.ts) use Chromium's own virtual authenticator.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

const sha256 = (data: Uint8Array | string): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha256').update(data).digest());

export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  /** The user handle the credential stores (base64url), as the registration options gave it. */
  userHandle: string;
  rpId: string;
  counter: number;
}

export interface CeremonyOptions {
  origin: string;
  /** The RP ID the browser would use (the page's hostname); defaults to the origin's. */
  rpId?: string;
  userVerified?: boolean;
  /** The counter to report (a synced passkey reports 0 every time). */
  counter?: number;
  backedUp?: boolean;
}

function flags(options: CeremonyOptions, attested: boolean): number {
  let value = 0x01; // user present
  if (options.userVerified ?? true) value |= 0x04;
  if (options.backedUp) value |= 0x08 | 0x10;
  if (attested) value |= 0x40;
  return value;
}

function u32(n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function clientData(type: string, challenge: string, origin: string): string {
  return isoBase64URL.fromUTF8String(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/**
 * Answers registration options (`options_json` with the RP ID already replaced) with a new
 * credential: the registration response the browser would send, and the credential to sign in with.
 */
export function createCredential(
  optionsJson: { challenge: string; user: { id: string } },
  options: CeremonyOptions,
): { credential: SoftCredential; response: Record<string, unknown> } {
  const rpId = options.rpId ?? new URL(options.origin).hostname;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const cose = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, isoBase64URL.toBuffer(jwk.x!)],
    [-3, isoBase64URL.toBuffer(jwk.y!)],
  ]);
  const credentialId = new Uint8Array(randomBytes(32));
  const counter = options.counter ?? 0;
  const authData = concat(
    sha256(rpId),
    new Uint8Array([flags(options, true)]),
    u32(counter),
    new Uint8Array(16), // AAGUID: none
    new Uint8Array([0, credentialId.length]),
    credentialId,
    isoCBOR.encode(cose),
  );
  const attestationObject = isoCBOR.encode(
    new Map<string, unknown>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authData],
    ]) as never,
  );
  const id = isoBase64URL.fromBuffer(credentialId);
  return {
    credential: { id, privateKey, userHandle: optionsJson.user.id, rpId, counter },
    response: {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: clientData('webauthn.create', optionsJson.challenge, options.origin),
        attestationObject: isoBase64URL.fromBuffer(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    },
  };
}

/** Answers authentication options with an assertion by `credential` (its counter moves on unless `counter` says otherwise). */
export function assert(credential: SoftCredential, optionsJson: { challenge: string }, options: CeremonyOptions): Record<string, unknown> {
  const rpId = options.rpId ?? credential.rpId;
  credential.counter = options.counter ?? credential.counter + 1;
  const authData = concat(sha256(rpId), new Uint8Array([flags(options, false)]), u32(credential.counter));
  const clientDataJSON = clientData('webauthn.get', optionsJson.challenge, options.origin);
  const signature = sign('sha256', concat(authData, sha256(isoBase64URL.toBuffer(clientDataJSON))), credential.privateKey);
  return {
    id: credential.id,
    rawId: credential.id,
    type: 'public-key',
    response: {
      clientDataJSON,
      authenticatorData: isoBase64URL.fromBuffer(authData),
      signature: isoBase64URL.fromBuffer(new Uint8Array(signature)),
      userHandle: credential.userHandle,
    },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}
