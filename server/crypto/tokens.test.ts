import { describe, expect, it } from 'vitest';
import { DEFAULT_SECRET_BITS, constantTimeEqual, hashSecret, lastFour, newProjectKey, randomSecret } from './tokens.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function decodedBits(secret: string): number {
  return Buffer.from(secret, 'base64url').length * 8;
}

describe('randomSecret', () => {
  it('defaults to 224 bits (spec section 9) as unpadded base64url', () => {
    expect(DEFAULT_SECRET_BITS).toBe(224);
    const secret = randomSecret();
    expect(secret).toMatch(BASE64URL);
    // 28 bytes → 38 base64url characters without padding.
    expect(secret).toHaveLength(38);
    expect(decodedBits(secret)).toBe(224);
    // Round-trips: the text is exactly the encoding of the random bytes.
    expect(Buffer.from(secret, 'base64url').toString('base64url')).toBe(secret);
  });

  it.each([128, 136, 192, 256, 512])('gives exactly %i bits when asked', (bits) => {
    const secret = randomSecret(bits);
    expect(secret).toMatch(BASE64URL);
    expect(decodedBits(secret)).toBe(bits);
    expect(secret).toHaveLength(Math.ceil(((bits / 8) * 4) / 3));
  });

  it.each([0, 8, 64, 120, 127, -128, 130, 129.5, Number.NaN])('refuses %s bits (fewer than 128, or not whole bytes)', (bits) => {
    expect(() => randomSecret(bits)).toThrow(/128 bits/);
  });

  it('never repeats over 10 000 draws, at the minimum strength too', () => {
    for (const bits of [128, 224]) {
      const seen = new Set<string>();
      for (let i = 0; i < 10_000; i++) seen.add(randomSecret(bits));
      expect(seen.size).toBe(10_000);
    }
  });

  it('looks uniformly random: every bit position is set about half of the time', () => {
    // 10 000 draws of 224 bits. For a fair bit the count of ones is Binomial(10 000, 0.5): mean 5000,
    // sd 50. A band of ±300 (6 sd) fails a correct generator with probability ~1e-9 per position, but
    // catches a constant byte, a counter or a biased encoding at once.
    const draws = 10_000;
    const ones = new Array<number>(224).fill(0);
    for (let i = 0; i < draws; i++) {
      const bytes = Buffer.from(randomSecret(), 'base64url');
      for (let bit = 0; bit < 224; bit++) if ((bytes[bit >> 3]! >> (bit & 7)) & 1) ones[bit]!++;
    }
    for (const count of ones) {
      expect(count).toBeGreaterThan(draws / 2 - 300);
      expect(count).toBeLessThan(draws / 2 + 300);
    }
  });

  it('uses the whole base64url alphabet (no reduced character set)', () => {
    const chars = new Set<string>();
    for (let i = 0; i < 2_000; i++) for (const c of randomSecret()) chars.add(c);
    expect(chars.size).toBe(64);
  });
});

describe('hashSecret', () => {
  it('is SHA-256 as 64 lowercase hex characters (known answer)', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashSecret('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('is deterministic and distinguishes near-identical inputs', () => {
    const secret = randomSecret();
    expect(hashSecret(secret)).toBe(hashSecret(secret));
    expect(hashSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(`${secret}x`)).not.toBe(hashSecret(secret));
    expect(hashSecret(secret.toUpperCase())).not.toBe(hashSecret(secret.toLowerCase()));
  });

  it('hashes the UTF-8 text, so non-ASCII secrets are stable', () => {
    expect(hashSecret('é')).toBe(hashSecret('\u00e9'));
    expect(hashSecret('é')).not.toBe(hashSecret('e\u0301'));
  });
});

describe('constantTimeEqual', () => {
  it('is true only for identical strings', () => {
    const a = randomSecret();
    expect(constantTimeEqual(a, a)).toBe(true);
    expect(constantTimeEqual(a, `${a}`)).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual(a, a.slice(0, -1) + (a.endsWith('A') ? 'B' : 'A'))).toBe(false);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('Abc', 'abc')).toBe(false);
  });

  it('is false (and does not throw) when lengths differ', () => {
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
    expect(constantTimeEqual('a', '')).toBe(false);
    // Same character count, different byte length in UTF-8.
    expect(constantTimeEqual('é', 'e')).toBe(false);
    // Same byte length, different text.
    expect(constantTimeEqual('é', 'ab')).toBe(false);
  });

  it('compares code points, not a normalised form', () => {
    expect(constantTimeEqual('\u00e9', 'e\u0301')).toBe(false);
    expect(constantTimeEqual('\u00e9', '\u00e9')).toBe(true);
  });
});

describe('project keys', () => {
  it.each([
    ['publishable_client_key', 'pck_'],
    ['secret_server_key', 'ssk_'],
    ['super_secret_admin_key', 'sak_'],
  ] as const)('%s starts with %s and carries 224 random bits', (kind, prefix) => {
    const key = newProjectKey(kind);
    expect(key.startsWith(prefix)).toBe(true);
    const body = key.slice(prefix.length);
    expect(body).toMatch(BASE64URL);
    expect(decodedBits(body)).toBe(224);
    expect(newProjectKey(kind)).not.toBe(key);
  });

  it('shows only the last four characters', () => {
    expect(lastFour('pck_abcdefgh')).toBe('efgh');
    const key = newProjectKey('secret_server_key');
    expect(lastFour(key)).toBe(key.slice(-4));
    expect(lastFour(key)).toHaveLength(4);
  });
});
