import bcrypt from 'bcryptjs';
import { describe, expect, it, vi } from 'vitest';

// A pass-through spy on argon2's verify: the tests below see which hashes were verified.
const argon2Spy = vi.hoisted(() => ({ onVerify: null as ((hash: string) => void) | null }));
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const real = await importOriginal<typeof import('@node-rs/argon2')>();
  return {
    ...real,
    verify: (hash: string, ...rest: Parameters<typeof real.verify> extends [unknown, ...infer R] ? R : never) => {
      argon2Spy.onVerify?.(hash);
      return real.verify(hash, ...rest);
    },
  };
});
import { defaultHashConcurrency } from '../env.js';
import { FairJobLimiter } from './fair-limiter.js';
import {
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  hashPassword as hashIn,
  isSupportedPasswordHash,
  passwordJobCounts,
  verifyPassword as verifyIn,
} from './passwords.js';

// Every job runs in a project's turn; these tests use one queue.
const caller = { tenancy: { projectId: 'test-project' } };
const hashPassword = (password: string) => hashIn(password, caller);
const verifyPassword = (password: string, hash: string | null) => verifyIn(password, hash, caller);

// Cost 4 keeps the bcrypt tests fast; the cost is part of the hash, so verification reads it.
const bcryptHash = (password: string) => bcrypt.hashSync(password, 4);

describe('hashPassword (argon2id, OWASP parameters)', () => {
  it('writes a PHC string with argon2id v19, m=19456, t=2, p=1', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    // salt and digest, base64 without padding
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(hash).not.toContain('correct horse');
  });

  it('salts every hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
  });
});

describe('verifyPassword', () => {
  it('accepts the right password and refuses any other, without asking for a rehash', async () => {
    const hash = await hashPassword('pässwörd-✓-long enough');
    expect(await verifyPassword('pässwörd-✓-long enough', hash)).toEqual({ ok: true, needsRehash: false });
    expect(await verifyPassword('pässwörd-✓-long enougH', hash)).toEqual({ ok: false, needsRehash: false });
    expect(await verifyPassword('', hash)).toEqual({ ok: false, needsRehash: false });
    expect(await verifyPassword('pässwörd-✓-long enough ', hash)).toEqual({ ok: false, needsRehash: false });
  });

  it('with no stored hash (unknown user, no password) always fails, and does not throw', async () => {
    expect(await verifyPassword('anything', null)).toEqual({ ok: false, needsRehash: false });
    expect(await verifyPassword('', null)).toEqual({ ok: false, needsRehash: false });
  });

  it('does as much work for a missing hash as for a wrong password (no timing oracle on existence)', async () => {
    // Counted, not timed (a timed comparison flaked on a loaded CI machine): both paths must run
    // exactly one argon2id verification, against a hash with the same parameters, in the queue.
    const hash = await hashPassword('the real one');
    const verified: string[] = [];
    argon2Spy.onVerify = (h) => verified.push(h);
    try {
      const before = passwordJobCounts.run;
      await verifyPassword('wrong', hash);
      await verifyPassword('wrong', null);
      expect(passwordJobCounts.run - before).toBe(2);
    } finally {
      argon2Spy.onVerify = null;
    }
    expect(verified).toHaveLength(2);
    const parameters = (h: string) => h.split('$').slice(1, 4).join('$');
    expect(verified[0]).toBe(hash);
    expect(parameters(verified[1]!)).toBe(parameters(hash));
    expect(parameters(hash)).toBe('argon2id$v=19$m=19456,t=2,p=1');
  });

  it('refuses a corrupt or unknown hash without throwing', async () => {
    expect((await verifyPassword('x', 'not a hash')).ok).toBe(false);
    expect((await verifyPassword('x', '$argon2id$v=19$m=19456,t=2,p=1$broken')).ok).toBe(false);
    expect((await verifyPassword('x', '')).ok).toBe(false);
  });

  it.each(['$2a$', '$2b$', '$2y$'])('verifies imported bcrypt %s hashes and asks for an argon2id rehash on success', async (prefix) => {
    const hash = bcryptHash('imported password').replace(/^\$2[aby]\$/, prefix);
    expect(hash.startsWith(prefix)).toBe(true);
    expect(await verifyPassword('imported password', hash)).toEqual({ ok: true, needsRehash: true });
    // A wrong password never triggers a rehash (it would let anyone replace the hash).
    expect(await verifyPassword('imported passworD', hash)).toEqual({ ok: false, needsRehash: false });
  });

  it('verifies bcrypt hashes of other costs', async () => {
    const hash = bcrypt.hashSync('cost six', 6);
    expect(hash).toMatch(/^\$2[aby]\$06\$/);
    expect(await verifyPassword('cost six', hash)).toEqual({ ok: true, needsRehash: true });
  });
});

describe('isSupportedPasswordHash', () => {
  it('accepts argon2id and bcrypt $2a/$2b/$2y', async () => {
    expect(isSupportedPasswordHash(await hashPassword('x'))).toBe(true);
    const b = bcryptHash('x');
    for (const prefix of ['$2a$', '$2b$', '$2y$']) expect(isSupportedPasswordHash(b.replace(/^\$2[aby]\$/, prefix))).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['plain text', 'hunter2'],
    ['argon2i', '$argon2i$v=19$m=19456,t=2,p=1$kVSqTe805yIU99XfhrDBqw$H+2cmaVzrALbbESujN9aW/u+Q2/DYxzpgQPgAtEI1bw'],
    ['argon2d', '$argon2d$v=19$m=19456,t=2,p=1$kVSqTe805yIU99XfhrDBqw$H+2cmaVzrALbbESujN9aW/u+Q2/DYxzpgQPgAtEI1bw'],
    ['bcrypt $2x$', '$2x$04$7Z5UW7.YaGLXluHU8Ixqiu4JGXMvfLOtnv.2SDAnQXC4fRmtvkDi.'],
    ['bcrypt $2$', '$2$04$7Z5UW7.YaGLXluHU8Ixqiu4JGXMvfLOtnv.2SDAnQXC4fRmtvkDi.'],
    ['bcrypt too short', '$2b$04$7Z5UW7.YaGLXluHU8Ixqiu4JGXMvfLOtnv.2SDAnQXC4fRmtvkDi'],
    ['bcrypt too long', '$2b$04$7Z5UW7.YaGLXluHU8Ixqiu4JGXMvfLOtnv.2SDAnQXC4fRmtvkDi.x'],
    ['bcrypt bad cost', '$2b$4$7Z5UW7.YaGLXluHU8Ixqiu4JGXMvfLOtnv.2SDAnQXC4fRmtvkDi.'],
    ['sha256 hex', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['md5 crypt', '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/'],
    ['scrypt', '$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4Yt3ABY7nIvwD9J8Dqu7I0'],
  ])('refuses %s', (_name, value) => {
    expect(isSupportedPasswordHash(value)).toBe(false);
  });
});

describe('password limits (spec sections 5 and 9)', () => {
  it('allows at most 70 characters and asks for a minimum', () => {
    expect(PASSWORD_MAX_LENGTH).toBe(70);
    expect(PASSWORD_MIN_LENGTH).toBeGreaterThanOrEqual(8);
    expect(PASSWORD_MIN_LENGTH).toBeLessThan(PASSWORD_MAX_LENGTH);
  });
});

describe('argon2id concurrency limit', () => {
  it('defaults to cores - 1, at least 2', () => {
    expect(defaultHashConcurrency(2)).toBe(2);
    expect(defaultHashConcurrency(1)).toBe(2);
    expect(defaultHashConcurrency(4)).toBe(3);
    expect(defaultHashConcurrency(8)).toBe(7);
  });

  it('runs at most `limit` jobs at once, in call order within one key, and frees the slot when a job fails', async () => {
    const limiter = new FairJobLimiter(2, 100);
    const started: number[] = [];
    const finishers: Array<(fail: boolean) => void> = [];
    const jobs = Array.from({ length: 5 }, (_, i) =>
      limiter.run(
        'one',
        () =>
          new Promise<number>((resolve, reject) => {
            started.push(i);
            finishers[i] = (fail) => (fail ? reject(new Error(`job ${i}`)) : resolve(i));
          }),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    expect(limiter.queued).toBe(3);
    finishers[1]!(true);
    await expect(jobs[1]).rejects.toThrow('job 1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    finishers[0]!(false);
    finishers[2]!(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.active).toBe(2);
    finishers[3]!(false);
    finishers[4]!(false);
    expect(await Promise.all([jobs[0], jobs[2], jobs[3], jobs[4]])).toEqual([0, 2, 3, 4]);
    expect(limiter.active).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('still hashes and verifies through the limiter', async () => {
    const hashes = await Promise.all(['one-password', 'two-password', 'three-password'].map((p) => hashPassword(p)));
    expect((await verifyPassword('two-password', hashes[1]!)).ok).toBe(true);
    expect((await verifyPassword('one-password', hashes[1]!)).ok).toBe(false);
  });
});
