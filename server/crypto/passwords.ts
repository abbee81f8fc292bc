import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

/** OWASP's argon2id parameters: m = 19 MiB, t = 2, p = 1. Runs on libuv's pool, off the event loop. */
// algorithm 2 is Algorithm.Argon2id (an ambient const enum, not importable as a value here).
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

const BCRYPT_PATTERN = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const ARGON2ID_PATTERN = /^\$argon2id\$/;

/** Whether an imported hash is one we can verify (argon2id, or bcrypt $2a/$2b/$2y). */
export function isSupportedPasswordHash(passwordHash: string): boolean {
  return BCRYPT_PATTERN.test(passwordHash) || ARGON2ID_PATTERN.test(passwordHash);
}

/**
 * A fixed argon2id hash verified when the account does not exist (or has no password), so that
 * "no such email" costs the same work and time as "wrong password": no user enumeration by timing.
 */
let dummyHash: Promise<string> | null = null;
function getDummyHash(): Promise<string> {
  dummyHash ??= hashPassword('latch-dummy-password-for-constant-work');
  return dummyHash;
}

export interface PasswordCheck {
  ok: boolean;
  /** True when the stored hash should be replaced by a fresh argon2id hash (imported bcrypt). */
  needsRehash: boolean;
}

/** Verifies a password against a stored hash; with no hash, does the same work and fails. */
export async function verifyPassword(password: string, passwordHash: string | null): Promise<PasswordCheck> {
  if (passwordHash === null) {
    await verify(await getDummyHash(), password).catch(() => false);
    return { ok: false, needsRehash: false };
  }
  if (BCRYPT_PATTERN.test(passwordHash)) {
    const ok = await bcrypt.compare(password, passwordHash);
    return { ok, needsRehash: ok };
  }
  const ok = await verify(passwordHash, password).catch(() => false);
  return { ok, needsRehash: false };
}

/** Warms the dummy hash at start-up so the first failed sign-in is not slower than the rest. */
export async function warmPasswordHashing(): Promise<void> {
  await getDummyHash();
}
