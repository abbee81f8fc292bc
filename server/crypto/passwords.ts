import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { DEFAULT_HASH_QUEUE_PER_PROJECT } from '../env.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { CallerGoneError, FairJobLimiter, QueueFullError } from './fair-limiter.js';

/** OWASP's argon2id parameters: m = 19 MiB, t = 2, p = 1. Runs on libuv's pool, off the event loop. */
// algorithm 2 is Algorithm.Argon2id (an ambient const enum, not importable as a value here).
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;

/**
 * At most `env.passwordHashConcurrency` password jobs (argon2id hashes and verifications, bcrypt
 * verifications) run at once (default cores − 1, at least 2); the rest wait, each project in its
 * own queue of at most `env.passwordHashQueuePerProject` jobs, and free slots go to the projects in
 * turn (fair-limiter.ts). A call that will hash is admitted first (admitPasswordCall), before it
 * touches the database, so the refused excess of a flood costs no query either. Hashing is CPU-bound, so more jobs than cores do not finish sooner: they
 * only take the cores from the event loop and PostgreSQL, and fill libuv's 4-thread pool that DNS,
 * file and zlib work share. One project flooding sign-ups fills only its own queue and then gets
 * RATE_LIMITED at once; another project's sign-in waits for at most one job per busy project.
 */
let hashing = new FairJobLimiter(2, DEFAULT_HASH_QUEUE_PER_PROJECT);

/** Called once at start-up with env.passwordHashConcurrency and env.passwordHashQueuePerProject. */
export function setPasswordHashConcurrency(limit: number, maxQueuedPerProject = DEFAULT_HASH_QUEUE_PER_PROJECT): void {
  hashing = new FairJobLimiter(Math.max(1, Math.floor(limit)), Math.max(0, Math.floor(maxQueuedPerProject)));
}

/**
 * Admits one call of `project` that will hash or verify a password, or refuses it with
 * RATE_LIMITED (Retry-After) when the project already has its maximum under way. Returns the
 * function to call when the call is done.
 */
export function admitPasswordCall(project: string, gone?: () => boolean): () => void {
  try {
    return hashing.admit(project, gone);
  } catch (error) {
    if (error instanceof QueueFullError) throw new KnownErrors.RateLimited(error.retryAfterSeconds);
    throw error;
  }
}

/**
 * Whose password job this is: the project whose queue it waits in, and, when the call came over
 * HTTP, how to tell that its client has disconnected (trpc/context.ts): a job still waiting for its
 * turn then is not run. Under a flood whose clients time out (or a load generator that stops with
 * calls queued), the cores otherwise go on hashing for answers nobody reads, and the clients that
 * are still there wait behind them. An AuthContext is one. Passed, not kept in an
 * AsyncLocalStorage: on Node 20 one that has ever run turns on async_hooks' promise hooks for every
 * promise of the process.
 */
export interface PasswordCaller {
  tenancy: { projectId: string };
  clientGone?: () => boolean;
}

/** Password jobs run, and dropped because their client had gone, since start (GET /metrics). */
export const passwordJobCounts = { run: 0, dropped: 0 };

/** Runs a password job in its caller's project's turn; a full queue is RATE_LIMITED with Retry-After. */
async function inTurn<T>(caller: PasswordCaller, job: () => Promise<T>): Promise<T> {
  try {
    return await hashing.run(
      caller.tenancy.projectId,
      () => {
        passwordJobCounts.run++;
        return job();
      },
      caller.clientGone,
    );
  } catch (error) {
    if (error instanceof QueueFullError) throw new KnownErrors.RateLimited(error.retryAfterSeconds);
    if (error instanceof CallerGoneError) {
      passwordJobCounts.dropped++;
      // The answer reaches no one; a catalogued refusal (nothing was checked) keeps it out of the error log.
      throw new KnownErrors.RateLimited(1);
    }
    throw error;
  }
}

/** Hashes a password with argon2id, in the turn of the caller's project (the project the password belongs to). */
export function hashPassword(password: string, caller: PasswordCaller): Promise<string> {
  return inTurn(caller, () => hash(password, ARGON2_OPTIONS));
}

async function verifyArgon2(passwordHash: string, password: string, caller: PasswordCaller): Promise<boolean> {
  // A corrupt hash is a failed check; a full queue is not (it must reach the caller as RATE_LIMITED).
  return inTurn(caller, () => verify(passwordHash, password).catch(() => false));
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
  dummyHash ??= hash('latch-dummy-password-for-constant-work', ARGON2_OPTIONS);
  return dummyHash;
}

export interface PasswordCheck {
  ok: boolean;
  /** True when the stored hash should be replaced by a fresh argon2id hash (imported bcrypt). */
  needsRehash: boolean;
}

/**
 * Verifies a password against a stored hash, in the turn of the caller's project; with no hash,
 * does the same work and fails.
 */
export async function verifyPassword(password: string, passwordHash: string | null, caller: PasswordCaller): Promise<PasswordCheck> {
  if (passwordHash === null) {
    await verifyArgon2(await getDummyHash(), password, caller);
    return { ok: false, needsRehash: false };
  }
  if (BCRYPT_PATTERN.test(passwordHash)) {
    // bcryptjs is plain JavaScript: as costly as argon2id, so it waits for its turn the same way.
    const ok = await inTurn(caller, () => bcrypt.compare(password, passwordHash));
    return { ok, needsRehash: ok };
  }
  const ok = await verifyArgon2(passwordHash, password, caller);
  return { ok, needsRehash: false };
}

/** Warms the dummy hash at start-up so the first failed sign-in is not slower than the rest. */
export async function warmPasswordHashing(): Promise<void> {
  await getDummyHash();
}
