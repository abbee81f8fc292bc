/**
 * The data vault's client-side cryptography (spec section 7, "Data vault"; issue 19 item 1), in
 * WebCrypto only, so it runs in Node 20, Deno, workers and browsers alike. The server receives a
 * hashed key and an encrypted value and never learns the key, the value or the secret.
 *
 * The scheme, exactly (all strings UTF-8; base64 is standard with padding):
 *
 * 1. `material = PBKDF2-SHA256(password = key, salt = "latch-data-vault-v1\0" + secret,
 *    iterations = 100000, length = 256 bits)`. This is the one slow step (~26 ms); its result is
 *    cached per process, per (secret, key).
 * 2. `hashed_key = base64(HMAC-SHA256(material, "latch-data-vault-v1:hashed-key"))`: what the
 *    server indexes by. It reveals nothing of `material` (HMAC is one-way).
 * 3. To encrypt a value: a random 16-byte `salt` and 12-byte `iv`;
 *    `k = HKDF-SHA256(ikm = material, salt = salt, info = "latch-data-vault-v1:value", 256 bits)`;
 *    `ct = AES-256-GCM(k, iv, value, no associated data, 128-bit tag)`;
 *    `encrypted_value = base64(0x01 0x00 || salt || iv || ct)` (the tag is the end of `ct`).
 *    Decryption checks the two version bytes and fails on a wrong secret, a wrong key or any
 *    altered byte (GCM authentication).
 *
 * This mirrors the shape of Stack Auth's helper (PBKDF2 at 100,000 iterations over the key with
 * the secret in the salt, HKDF-derived AES-256-GCM with a per-value salt, a two-byte version
 * prefix) but is not claimed to be byte-compatible with it: its exact salts and labels could not
 * be checked here. The test vectors in vault-crypto.test.ts pin Latch's own bytes.
 */

export const DATA_VAULT_KEY_ITERATIONS = 100_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const VERSION = [0x01, 0x00] as const;

function subtle(): SubtleCrypto {
  const crypto = globalThis.crypto;
  if (!crypto?.subtle) throw new Error('The data vault needs WebCrypto (globalThis.crypto.subtle), present in Node 20+, Deno, workers and browsers.');
  return crypto.subtle;
}

function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** What one (secret, key) derives: the server's index and the value key material. */
export interface VaultKeyMaterial {
  hashedKey: string;
  material: Uint8Array<ArrayBuffer>;
}

// Per process: each derivation costs ~26 ms of CPU. Bounded so a process storing many keys does
// not keep every derivation; the oldest entries go first.
const CACHE_LIMIT = 1000;
const cache = new Map<string, Promise<VaultKeyMaterial>>();

/** Step 1 and 2: the PBKDF2 material and the hashed key, cached per process. */
export function deriveVaultKey(secret: string, key: string): Promise<VaultKeyMaterial> {
  if (typeof secret !== 'string') throw new TypeError('Data vault secret must be a string');
  if (typeof key !== 'string') throw new TypeError('Data vault key must be a string');
  const cacheKey = JSON.stringify([secret, key]);
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const derived = derive(secret, key);
  cache.set(cacheKey, derived);
  derived.catch(() => cache.delete(cacheKey));
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return derived;
}

async function derive(secret: string, key: string): Promise<VaultKeyMaterial> {
  const s = subtle();
  const password = await s.importKey('raw', encoder.encode(key), 'PBKDF2', false, ['deriveBits']);
  const salt = encoder.encode(`latch-data-vault-v1\0${secret}`);
  const material = new Uint8Array(await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations: DATA_VAULT_KEY_ITERATIONS }, password, 256));
  const hmacKey = await s.importKey('raw', material, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const hashed = new Uint8Array(await s.sign('HMAC', hmacKey, encoder.encode('latch-data-vault-v1:hashed-key')));
  return { hashedKey: toBase64(hashed), material };
}

async function valueKey(material: Uint8Array<ArrayBuffer>, salt: Uint8Array<ArrayBuffer>, usage: 'encrypt' | 'decrypt'): Promise<CryptoKey> {
  const s = subtle();
  const ikm = await s.importKey('raw', material, 'HKDF', false, ['deriveKey']);
  return s.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt, info: encoder.encode('latch-data-vault-v1:value') }, ikm, { name: 'AES-GCM', length: 256 }, false, [
    usage,
  ]);
}

/** Step 3: encrypts a value under the material; `random` is for test vectors only. */
export async function encryptVaultValue(
  material: Uint8Array<ArrayBuffer>,
  value: string,
  random?: { salt: Uint8Array<ArrayBuffer>; iv: Uint8Array<ArrayBuffer> },
): Promise<string> {
  const salt = random?.salt ?? globalThis.crypto.getRandomValues(new Uint8Array(16));
  const iv = random?.iv ?? globalThis.crypto.getRandomValues(new Uint8Array(12));
  const key = await valueKey(material, salt, 'encrypt');
  const ct = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv, tagLength: 128 }, key, encoder.encode(value)));
  const out = new Uint8Array(2 + 16 + 12 + ct.length);
  out.set(VERSION, 0);
  out.set(salt, 2);
  out.set(iv, 18);
  out.set(ct, 30);
  return toBase64(out);
}

/** Opens `encryptVaultValue`'s output; throws when the secret, key or bytes are wrong. */
export async function decryptVaultValue(material: Uint8Array<ArrayBuffer>, encrypted: string): Promise<string> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = fromBase64(encrypted);
  } catch {
    throw new Error('The data vault value is not valid base64.');
  }
  if (bytes.length < 2 + 16 + 12 + 16 || bytes[0] !== VERSION[0] || bytes[1] !== VERSION[1]) throw new Error('The data vault value is not in a known format.');
  const key = await valueKey(material, bytes.slice(2, 18), 'decrypt');
  try {
    const plain = await subtle().decrypt({ name: 'AES-GCM', iv: bytes.slice(18, 30), tagLength: 128 }, key, bytes.slice(30));
    return decoder.decode(plain);
  } catch {
    throw new Error('The data vault value could not be decrypted: wrong secret, or the stored value was altered.');
  }
}
