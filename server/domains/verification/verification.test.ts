import { beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../crypto/tokens.js';
import { KnownError } from '../../../contract/errors/known-error.js';
import type { Tenancy } from '../../access/context.js';
import { useHarness } from '../../test/harness.js';
import { tenancyOf } from '../../test/team-fixtures.js';
import { OTP_MAX_ATTEMPTS, checkCode, consumeCode, createCode, deleteCodes, linkWithCode, withCode } from './service.js';

const h = useHarness();
let tenancy: Tenancy;
let other: Tenancy;
beforeAll(async () => {
  const [a, b] = await Promise.all([h.createProject(), h.createProject()]);
  tenancy = await tenancyOf(h, a.id);
  other = await tenancyOf(h, b.id);
});

const db = () => h.latch.deps.db;

/** The code of the known error a promise rejects with. */
async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KnownError) return error.code;
    throw error;
  }
  throw new Error('expected a known error');
}

function issue(purpose = 'test', data: unknown = { n: 1 }, ttl = 60_000, options: { maxAttempts?: number } = {}) {
  return db()
    .transaction()
    .execute((trx) => createCode(trx, tenancy, purpose, data, ttl, options));
}

const consume = (code: string, purpose = 'test', t = tenancy) =>
  db()
    .transaction()
    .execute((trx) => consumeCode<{ n: number }>(trx, t, purpose, code));
const check = (code: string, purpose = 'test') =>
  db()
    .transaction()
    .execute((trx) => checkCode<{ n: number }>(trx, tenancy, purpose, code));

describe('verification codes', () => {
  it('issues a ≥128-bit code, stores only its SHA-256, and hands back the payload once', async () => {
    const issued = await issue('test', { n: 42 });
    expect(issued.code).toMatch(/^[A-Za-z0-9_-]{38}$/); // 224 bits of base64url
    const row = await db().selectFrom('verification_codes').selectAll().where('id', '=', issued.id).executeTakeFirstOrThrow();
    expect(row.code_hash).toBe(hashSecret(issued.code));
    expect(JSON.stringify(row)).not.toContain(issued.code);
    const used = await consume(issued.code);
    expect(used).toMatchObject({ id: issued.id, data: { n: 42 } });
    expect(await errorCode(consume(issued.code))).toBe('ALREADY_USED');
    const after = await db().selectFrom('verification_codes').selectAll().where('id', '=', issued.id).executeTakeFirstOrThrow();
    expect(after.used_at).toBeInstanceOf(Date);
    expect(after.attempt_count).toBe(1);
  });

  it('answers CODE_NOT_FOUND for an unknown code, another purpose and another project', async () => {
    const issued = await issue();
    expect(await errorCode(consume('x'.repeat(38)))).toBe('CODE_NOT_FOUND');
    expect(await errorCode(consume(issued.code, 'another-purpose'))).toBe('CODE_NOT_FOUND');
    expect(await errorCode(consume(issued.code, 'test', other))).toBe('CODE_NOT_FOUND');
    // None of that used it up.
    expect((await consume(issued.code)).id).toBe(issued.id);
  });

  it('answers EXPIRED after the time to live, and ALREADY_USED before EXPIRED', async () => {
    const expired = await issue('test', {}, -1);
    expect(await errorCode(consume(expired.code))).toBe('EXPIRED');
    const used = await issue('test', {}, 60_000);
    await consume(used.code);
    await db()
      .updateTable('verification_codes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', used.id)
      .execute();
    expect(await errorCode(consume(used.code))).toBe('ALREADY_USED');
  });

  it('counts checks as attempts and stops at the limit with MAX_ATTEMPTS_REACHED', async () => {
    const issued = await issue('test', { n: 7 }, 60_000, { maxAttempts: 3 });
    expect((await check(issued.code)).data).toEqual({ n: 7 });
    await check(issued.code);
    await check(issued.code);
    expect(await errorCode(check(issued.code))).toBe('MAX_ATTEMPTS_REACHED');
    expect(await errorCode(consume(issued.code))).toBe('MAX_ATTEMPTS_REACHED');
  });

  it('rolls the use back with the action that failed, so the code still works', async () => {
    const issued = await issue();
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await consumeCode(trx, tenancy, 'test', issued.code);
          throw new Error('the action failed');
        }),
    ).rejects.toThrow('the action failed');
    expect((await consume(issued.code)).id).toBe(issued.id);
  });

  it('lets exactly one of many concurrent uses of a code win', async () => {
    const issued = await issue();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => consume(issued.code)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as KnownError).code).toBe('ALREADY_USED');
  });

  it('withdraws deleted codes', async () => {
    const issued = await issue();
    await db()
      .transaction()
      .execute((trx) => deleteCodes(trx, tenancy, [issued.id]));
    expect(await errorCode(consume(issued.code))).toBe('CODE_NOT_FOUND');
  });
});

describe('helpers', () => {
  it('adds the code to a callback URL', () => {
    expect(linkWithCode('https://app.example.com/handler/team-invitation', 'abc')).toBe('https://app.example.com/handler/team-invitation?code=abc');
    expect(linkWithCode('https://app.example.com/cb?x=1&code=old#h', 'a+b')).toBe('https://app.example.com/cb?x=1&code=a%2Bb#h');
  });
});

describe('one-time codes (a 6-character short code followed by a nonce)', () => {
  const issueOtp = () =>
    db()
      .transaction()
      .execute((trx) => createCode(trx, tenancy, 'otp-test', { n: 9 }, 60_000, { otp: true }));
  const use = (code: string) => withCode<{ n: number }, { n: number }>(db(), tenancy, 'otp-test', code, 'consume', async (_trx, verified) => verified.data);

  it('finds the row by the nonce and keeps only hashes; the code is the short code then the nonce', async () => {
    const issued = await issueOtp();
    expect(issued.otp).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    expect(issued.code).toBe(`${issued.otp}${issued.nonce}`);
    const row = await db().selectFrom('verification_codes').selectAll().where('id', '=', issued.id).executeTakeFirstOrThrow();
    expect(row.code_hash).toBe(hashSecret(issued.nonce!));
    expect(JSON.stringify(row)).not.toContain(issued.otp!);
    expect((row.data as { max_attempts: number }).max_attempts).toBe(OTP_MAX_ATTEMPTS);
    expect(await use(`${issued.otp!.toLowerCase()}${issued.nonce}`)).toEqual({ n: 9 });
    expect(await errorCode(use(issued.code))).toBe('ALREADY_USED');
  });

  it('commits every wrong guess (withCode), and the last one allowed says MAX_ATTEMPTS_REACHED', async () => {
    const issued = await issueOtp();
    const wrong = issued.otp === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
    for (let i = 1; i < OTP_MAX_ATTEMPTS; i++) expect(await errorCode(use(`${wrong}${issued.nonce}`))).toBe('CODE_NOT_FOUND');
    expect(await errorCode(use(`${wrong}${issued.nonce}`))).toBe('MAX_ATTEMPTS_REACHED');
    expect(await errorCode(use(issued.code))).toBe('MAX_ATTEMPTS_REACHED');
    const row = await db().selectFrom('verification_codes').select(['attempt_count', 'used_at']).where('id', '=', issued.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ attempt_count: OTP_MAX_ATTEMPTS, used_at: null });
  });

  it('does not accept the nonce alone, and does not split a plain code', async () => {
    const issued = await issueOtp();
    expect(await errorCode(use(issued.nonce!))).toBe('CODE_NOT_FOUND');
    const plain = await issue('otp-test');
    expect(await errorCode(use(`ABCDEF${plain.code}`))).toBe('CODE_NOT_FOUND');
    expect(await use(plain.code)).toEqual({ n: 1 });
  });

  it('rolls the use back when the action fails, so the code still works', async () => {
    const issued = await issueOtp();
    await expect(
      withCode(db(), tenancy, 'otp-test', issued.code, 'consume', async () => {
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect(await use(issued.code)).toEqual({ n: 9 });
  });
});
