import { randomBytes } from 'node:crypto';
import type { Database } from '../db/kysely.js';
import { decrypt, encrypt } from '../crypto/encryption.js';
import { type AccessTokenClaims, Keyring, type SigningGeneration, parseKid, peekKid } from '../crypto/jwt.js';
import { insertSigningGeneration, listSigningGenerations, maxSigningGeneration } from '../domains/auth/queries.js';

/** A generation signs for this long before the next one takes over (older ones keep verifying). */
export const ROTATE_AFTER_MS = 30 * 24 * 3600 * 1000;
/** Old generations verify for this long after they stop signing: far beyond any access token's life (1 day at most). */
const KEEP_VERIFYING_MS = 2 * ROTATE_AFTER_MS;
/**
 * A new generation is published (JWKS, every instance's keyring) this long before it signs, so no
 * instance and no verifier that caches the JWKS meets a token of a key it has not seen yet.
 */
export const PUBLISH_AHEAD_MS = 3600 * 1000;
/** Every instance re-reads the generations at least this often (when it signs or serves a JWKS). */
const REFRESH_EVERY_MS = 10 * 60 * 1000;
/** At most one reload per this interval when a token names a generation we have not loaded. */
const RELOAD_THROTTLE_MS = 5000;

/**
 * The deployment's signing generations, loaded from the database and kept in one Keyring (which
 * derives each project's own key pair from them: crypto/jwt.ts).
 *
 * Why derived keys from stored seeds: verification stays database-free (a project's key is derived
 * in-process from a seed every instance loaded at start-up, not read per project), every instance
 * derives the same keys, nothing per project is stored, and forging a token still needs both the
 * database (the encrypted seed) and LATCH_SECRET (its key), as before; deriving straight from
 * LATCH_SECRET would let a leaked environment variable alone mint admin tokens for every project.
 *
 * Rotation: a new generation every ROTATE_AFTER_MS, published PUBLISH_AHEAD_MS before it signs;
 * the old ones verify for KEEP_VERIFYING_MS more. Another instance may rotate first: a token whose
 * kid names a generation this one has not loaded triggers one (throttled) reload.
 */
export class KeyringHolder {
  private lastReload = 0;
  private lastRefresh = Date.now();
  private refreshing: Promise<void> | null = null;
  private constructor(
    private readonly db: Database,
    private readonly key: Buffer,
    private readonly keyring: Keyring,
  ) {}

  static async load(db: Database, key: Buffer): Promise<KeyringHolder> {
    const generations = await loadOrRotate(db, key, false);
    return new KeyringHolder(db, key, new Keyring(generations, signingGenerationOf(generations)));
  }

  /** The keyring itself (pure CPU): sign, verify, jwks without any database refresh. */
  current(): Keyring {
    return this.keyring;
  }

  /** Signs with the key of the claims' project; re-reads the generations when they may be stale. */
  async sign(claims: Omit<AccessTokenClaims, 'iat' | 'exp'>, ttlSeconds: number): Promise<string> {
    await this.refreshIfStale();
    return this.keyring.sign(claims, ttlSeconds);
  }

  /** The project's public keys: one per loaded generation (the next one included once published). */
  async jwks(projectId: string): Promise<{ keys: Record<string, unknown>[] }> {
    await this.refreshIfStale();
    return this.keyring.jwks(projectId) as { keys: Record<string, unknown>[] };
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    // A token verified before needs no key lookup (and no parse of its header).
    if (this.keyring.isCachedValid(token)) return this.keyring.verify(token);
    const kid = peekKid(token);
    const named = kid ? parseKid(kid) : null;
    if (named && !this.keyring.hasGeneration(named.generation) && Date.now() - this.lastReload > RELOAD_THROTTLE_MS) {
      this.lastReload = Date.now();
      await this.refresh();
    }
    return this.keyring.verify(token);
  }

  /** Re-reads the generations (rotating first when the newest is due) and swaps them in. */
  async refresh(): Promise<void> {
    const generations = await loadOrRotate(this.db, this.key, false);
    this.keyring.setGenerations(generations, signingGenerationOf(generations));
    this.lastRefresh = Date.now();
  }

  /**
   * Starts a new generation now (an operator's rotation, tests). It is published at once and signs
   * after PUBLISH_AHEAD_MS; tokens of the older generations keep verifying.
   */
  async rotate(): Promise<number> {
    const generations = await loadOrRotate(this.db, this.key, true);
    this.keyring.setGenerations(generations, signingGenerationOf(generations));
    this.lastRefresh = Date.now();
    return Math.max(...generations.map((g) => g.generation));
  }

  private async refreshIfStale(): Promise<void> {
    if (Date.now() - this.lastRefresh < REFRESH_EVERY_MS) return;
    // Concurrent callers share one reload.
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = null;
    });
    await this.refreshing;
  }
}

/**
 * The generation that signs: the newest one published at least PUBLISH_AHEAD_MS ago, or, when none
 * is that old (a fresh deployment), the oldest loaded one.
 */
export function signingGenerationOf(generations: SigningGeneration[], now = Date.now()): number {
  const published = generations.filter((g) => now - g.createdAt.getTime() >= PUBLISH_AHEAD_MS).map((g) => g.generation);
  return published.length > 0 ? Math.max(...published) : Math.min(...generations.map((g) => g.generation));
}

const associatedData = (generation: number) => `signing-generation:${generation}`;

async function readGenerations(db: Database, key: Buffer): Promise<SigningGeneration[]> {
  const rows = await listSigningGenerations(db, new Date(Date.now() - ROTATE_AFTER_MS - KEEP_VERIFYING_MS));
  return rows.map((row) => {
    let seed: Buffer;
    try {
      seed = Buffer.from(decrypt(key, row.seed_encrypted, associatedData(row.generation)), 'base64url');
    } catch {
      throw new Error(
        "The stored signing keys cannot be decrypted: LATCH_SECRET is not the secret this database was set up with. Use the original LATCH_SECRET (or the data folder's secret file).",
      );
    }
    if (seed.length !== 32) throw new Error('a stored signing seed is not 32 bytes');
    return { generation: row.generation, seed, createdAt: row.created_at };
  });
}

/**
 * The live generations, after adding one when none was created within ROTATE_AFTER_MS (or always,
 * when `force`). Instances racing to rotate insert the same next number: one wins, the others'
 * insert is a no-op (ON CONFLICT DO NOTHING), and the guard in the statement stops an instance that
 * read before another's rotation from adding a second one.
 */
async function loadOrRotate(db: Database, key: Buffer, force: boolean): Promise<SigningGeneration[]> {
  let generations = await readGenerations(db, key);
  const newest = generations.reduce<number>((max, g) => Math.max(max, g.createdAt.getTime()), 0);
  if (force || Date.now() - newest > ROTATE_AFTER_MS) {
    const next = generations.reduce<number>((max, g) => Math.max(max, g.generation), await maxSigningGeneration(db)) + 1;
    const seed = randomBytes(32).toString('base64url');
    await insertSigningGeneration(
      db,
      { generation: next, seed_encrypted: encrypt(key, seed, associatedData(next)) },
      force ? null : new Date(Date.now() - ROTATE_AFTER_MS),
    );
    generations = await readGenerations(db, key);
  }
  if (generations.length === 0) throw new Error('no signing generation could be created');
  return generations;
}
