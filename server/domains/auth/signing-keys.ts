import type { Database } from '../../db/kysely.js';
import { decrypt, encrypt } from '../../crypto/encryption.js';
import { type AccessTokenClaims, Keyring, type StoredSigningKey, generateSigningKey, peekKid } from '../../crypto/jwt.js';
import { insertSigningKey, listSigningKeys } from './queries.js';

/** A signing key signs for this long before a new one takes over (old ones keep verifying). */
const ROTATE_AFTER_MS = 30 * 24 * 3600 * 1000;
/** Old keys verify for this long after they stop signing: far beyond any access token's life. */
const KEEP_VERIFYING_MS = 2 * ROTATE_AFTER_MS;
/** At most one reload per this interval when a token names a key we have not seen yet. */
const RELOAD_THROTTLE_MS = 5000;

/**
 * Holds the current keyring. Another instance may rotate first: a token signed by a key this one
 * has not loaded triggers one (throttled) reload, so verification stays database-free otherwise.
 */
export class KeyringHolder {
  private lastReload = 0;
  private constructor(private readonly db: Database, private readonly key: Buffer, private keyring: Keyring) {}

  static async load(db: Database, key: Buffer): Promise<KeyringHolder> {
    return new KeyringHolder(db, key, await loadOrRotate(db, key));
  }

  current(): Keyring {
    return this.keyring;
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    // A token verified before needs no key lookup (and no parse of its header).
    if (this.keyring.isCachedValid(token)) return this.keyring.verify(token);
    const kid = peekKid(token);
    if (kid && !this.keyring.hasKid(kid) && Date.now() - this.lastReload > RELOAD_THROTTLE_MS) {
      this.lastReload = Date.now();
      this.keyring = await Keyring.create(await readKeys(this.db, this.key));
    }
    return this.keyring.verify(token);
  }
}

async function readKeys(db: Database, key: Buffer) {
  const rows = await listSigningKeys(db, new Date(Date.now() - ROTATE_AFTER_MS - KEEP_VERIFYING_MS));
  return rows.map((row) => {
    let privateJwk: unknown;
    try {
      privateJwk = JSON.parse(decrypt(key, row.private_jwk_encrypted, row.kid));
    } catch {
      throw new Error('The stored signing keys cannot be decrypted: LATCH_SECRET is not the secret this database was set up with. Use the original LATCH_SECRET (or the data folder\'s secret file).');
    }
    return { kid: row.kid, publicJwk: row.public_jwk, privateJwk: privateJwk as StoredSigningKey['privateJwk'], createdAt: row.created_at };
  });
}

async function loadOrRotate(db: Database, key: Buffer): Promise<Keyring> {
  const keys = await readKeys(db, key);
  const newest = keys.reduce<number>((max, k) => Math.max(max, k.createdAt.getTime()), 0);
  if (Date.now() - newest > ROTATE_AFTER_MS) {
    const fresh = await generateSigningKey();
    await insertSigningKey(db, {
      kid: fresh.kid,
      public_jwk: JSON.stringify(fresh.publicJwk),
      private_jwk_encrypted: encrypt(key, JSON.stringify(fresh.privateJwk), fresh.kid),
    });
    keys.push(fresh);
  }
  return Keyring.create(keys);
}
