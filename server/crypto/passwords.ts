import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

/** OWASP's argon2id parameters: m = 19 MiB, t = 2, p = 1. Runs on libuv's pool, off the event loop. */
// algorithm 2 is Algorithm.Argon2id (an ambient const enum, not importable as a value here).
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;

/**
 * At most `env.passwordHashConcurrency` argon2id jobs run at once (set at start-up by
 * setPasswordHashConcurrency; default cores − 1, at least 2); the rest wait in a FIFO queue. Hashing is
 * CPU-bound, so more jobs than cores do not finish sooner: they only take the cores from the event
 * loop and PostgreSQL, and fill libuv's 4-thread pool that DNS, file and zlib work share.
 */
/** A counting semaphore: `run` starts `job` when fewer than `limit` jobs are running, in call order. */
export class JobLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      if (next) next();
      else this.running--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }

  get active(): number {
    return this.running;
  }
}

let hashing = new JobLimiter(2);

/** Called once at start-up with env.passwordHashConcurrency. */
export function setPasswordHashConcurrency(limit: number): void {
  hashing = new JobLimiter(Math.max(1, Math.floor(limit)));
}

export function hashPassword(password: string): Promise<string> {
  return hashing.run(() => hash(password, ARGON2_OPTIONS));
}

function verifyArgon2(passwordHash: string, password: string): Promise<boolean> {
  return hashing.run(() => verify(passwordHash, password)).catch(() => false);
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
    await verifyArgon2(await getDummyHash(), password);
    return { ok: false, needsRehash: false };
  }
  if (BCRYPT_PATTERN.test(passwordHash)) {
    const ok = await bcrypt.compare(password, passwordHash);
    return { ok, needsRehash: ok };
  }
  const ok = await verifyArgon2(passwordHash, password);
  return { ok, needsRehash: false };
}

/** Warms the dummy hash at start-up so the first failed sign-in is not slower than the rest. */
export async function warmPasswordHashing(): Promise<void> {
  await getDummyHash();
}
