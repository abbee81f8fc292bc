import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The purposes a sub-key is derived for; one key per purpose, so a leak of one stays there. */
export type KeyPurpose =
  'signing-keys' | 'config-secrets' | 'totp' | 'vault' | 'cursor' | 'email-bodies' | 'oauth-tokens' | 'webhook-secrets' | 'unsubscribe-links';

/** Derives a 256-bit sub-key from the root secret with HKDF-SHA256, per purpose. */
export function deriveKey(rootSecret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(rootSecret), Buffer.alloc(0), `latch:${purpose}:v1`, 32));
}

const VERSION = 'v1';

/**
 * AES-256-GCM with a random 96-bit nonce. Output: `v1.<nonce>.<ciphertext>.<tag>` (base64url).
 * The optional associated data binds a ciphertext to its row, so it cannot be moved to another.
 */
export function encrypt(key: Buffer, plaintext: string, associatedData = ''): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(associatedData));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, nonce.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** Decrypts `encrypt`'s output; throws when the data was tampered with or the key is wrong. */
export function decrypt(key: Buffer, sealed: string, associatedData = ''): string {
  const [version, nonce, body, tag] = sealed.split('.');
  if (version !== VERSION || !nonce || body === undefined || !tag) throw new Error('not an encrypted value');
  // The tag length is pinned: GCM would otherwise accept a tag truncated to 4 bytes, and a 32-bit
  // tag can be forged by trial. The nonce length is pinned for the same reason (no odd IVs).
  const nonceBytes = Buffer.from(nonce, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (nonceBytes.length !== 12 || tagBytes.length !== 16) throw new Error('not an encrypted value');
  const decipher = createDecipheriv('aes-256-gcm', key, nonceBytes, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(tagBytes);
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
