import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type KeyPurpose, decrypt, deriveKey, encrypt } from './encryption.js';

const ROOT = 'a-root-secret-of-at-least-32-random-bytes-for-tests';
const key = deriveKey(ROOT, 'config-secrets');

/** Flips one bit of a base64url part of the sealed value. */
function flipBit(sealed: string, part: 1 | 2 | 3, byte = 0): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  bytes[byte] = bytes[byte]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('encrypt / decrypt (AES-256-GCM)', () => {
  it.each(['hello', '', 'pässwörd ✓ 🔑', 'x'.repeat(100_000), '{"json": true}'])('round-trips %#', (plaintext) => {
    const sealed = encrypt(key, plaintext);
    expect(decrypt(key, sealed)).toBe(plaintext);
  });

  it('writes v1.<nonce>.<ciphertext>.<tag> with a 96-bit nonce and a 128-bit tag, and no plaintext', () => {
    const sealed = encrypt(key, 'secret smtp password');
    const parts = sealed.split('.');
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe('v1');
    expect(Buffer.from(parts[1]!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[2]!, 'base64url')).toHaveLength('secret smtp password'.length);
    expect(Buffer.from(parts[3]!, 'base64url')).toHaveLength(16);
    expect(sealed).not.toContain('secret');
  });

  it('uses a fresh nonce per call: the same plaintext never encrypts the same way', () => {
    const nonces = new Set<string>();
    const outputs = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const sealed = encrypt(key, 'same plaintext');
      nonces.add(sealed.split('.')[1]!);
      outputs.add(sealed);
    }
    expect(nonces.size).toBe(2_000);
    expect(outputs.size).toBe(2_000);
  });

  it.each([1, 2, 3] as const)('throws when part %i (nonce, ciphertext, tag) is tampered with', (part) => {
    const sealed = encrypt(key, 'do not touch');
    expect(() => decrypt(key, flipBit(sealed, part))).toThrow();
  });

  it('throws when the ciphertext is truncated, extended or the tag shortened', () => {
    const sealed = encrypt(key, 'do not touch');
    const [v, n, c, t] = sealed.split('.') as [string, string, string, string];
    expect(() => decrypt(key, [v, n, c.slice(0, -2), t].join('.'))).toThrow();
    expect(() => decrypt(key, [v, n, `${c}AA`, t].join('.'))).toThrow();
    // A truncated GCM tag would weaken authentication: it must be refused, not accepted.
    expect(() => decrypt(key, [v, n, c, Buffer.from(t, 'base64url').subarray(0, 4).toString('base64url')].join('.'))).toThrow();
  });

  it('throws on values that are not sealed values', () => {
    const sealed = encrypt(key, 'x');
    expect(() => decrypt(key, '')).toThrow();
    expect(() => decrypt(key, 'plain text')).toThrow();
    expect(() => decrypt(key, sealed.replace(/^v1\./, 'v2.'))).toThrow();
    expect(() => decrypt(key, sealed.split('.').slice(0, 3).join('.'))).toThrow();
    // A nonce of another length than 96 bits is not one encrypt() wrote.
    const [v, n, c, t] = sealed.split('.') as [string, string, string, string];
    expect(() => decrypt(key, [v, Buffer.concat([Buffer.from(n, 'base64url'), Buffer.alloc(4)]).toString('base64url'), c, t].join('.'))).toThrow();
    expect(() => decrypt(key, [v, '', c, t].join('.'))).toThrow();
  });

  it('throws with the wrong key (another root, or another purpose of the same root)', () => {
    const sealed = encrypt(key, 'for config only');
    expect(() => decrypt(deriveKey('another-root-secret-entirely-different', 'config-secrets'), sealed)).toThrow();
    expect(() => decrypt(deriveKey(ROOT, 'vault'), sealed)).toThrow();
    expect(() => decrypt(randomBytes(32), sealed)).toThrow();
  });

  it('binds the associated data: a value sealed for one row does not open for another', () => {
    const sealed = encrypt(key, 'totp-secret', 'tenancy-1:user-1');
    expect(decrypt(key, sealed, 'tenancy-1:user-1')).toBe('totp-secret');
    expect(() => decrypt(key, sealed, 'tenancy-1:user-2')).toThrow();
    expect(() => decrypt(key, sealed, '')).toThrow();
    expect(() => decrypt(key, sealed)).toThrow();
    const unbound = encrypt(key, 'no aad');
    expect(() => decrypt(key, unbound, 'tenancy-1:user-1')).toThrow();
  });
});

describe('deriveKey (HKDF-SHA256 per purpose)', () => {
  const purposes: KeyPurpose[] = ['signing-keys', 'config-secrets', 'totp', 'vault', 'cursor'];

  it('gives 256-bit keys, deterministic for a root and purpose', () => {
    for (const purpose of purposes) {
      const derived = deriveKey(ROOT, purpose);
      expect(derived).toHaveLength(32);
      expect(derived.equals(deriveKey(ROOT, purpose))).toBe(true);
    }
  });

  it('gives a different key for every purpose, none equal to the root', () => {
    const keys = purposes.map((purpose) => deriveKey(ROOT, purpose).toString('hex'));
    expect(new Set(keys).size).toBe(purposes.length);
    for (const k of keys) expect(k).not.toBe(Buffer.from(ROOT).subarray(0, 32).toString('hex'));
  });

  it('gives a different key for a different root', () => {
    expect(deriveKey(ROOT, 'vault').equals(deriveKey(`${ROOT}!`, 'vault'))).toBe(false);
  });
});
