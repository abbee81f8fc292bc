import { randomUUID } from 'node:crypto';
import { hashSecret, randomSecret } from '../../crypto/tokens.js';
import { KnownErrors } from '../../errors/known-errors.js';
import type { Tenancy } from '../../trpc/context.js';
import type { Executor } from '../projects/queries.js';
import * as q from './queries.js';

/**
 * Verification codes for every purpose (team invitations here; email verification, password
 * reset and magic links in the email issue). A code is 224 random bits, shown once and stored as
 * its SHA-256, single use, expiring and attempt-limited. Every function takes the caller's
 * transaction, so using a code and the action it authorises commit or roll back together.
 */

/** How often one code may be checked or used before MAX_ATTEMPTS_REACHED, unless the purpose says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 20;

/**
 * What `data` holds in the row. The attempt limit travels with the code (purposes differ), next to
 * the purpose's own payload, so the table stays the shape the email issue builds on.
 */
interface StoredData {
  max_attempts: number;
  payload: unknown;
}

export interface IssuedCode {
  id: string;
  /** The plaintext code: put it in the link or the email, never store it. */
  code: string;
  expiresAt: Date;
}

export interface VerifiedCode<T> {
  id: string;
  data: T;
  expiresAt: Date;
  createdAt: Date;
}

export async function createCode(
  trx: Executor,
  tenancy: Tenancy,
  purpose: string,
  data: unknown,
  ttlMillis: number,
  options: { maxAttempts?: number; id?: string } = {},
): Promise<IssuedCode> {
  const code = randomSecret();
  const id = options.id ?? randomUUID();
  const expiresAt = new Date(Date.now() + ttlMillis);
  const stored: StoredData = { max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, payload: data };
  await q.insertCode(trx, { tenancy_id: tenancy.id, id, purpose, code_hash: hashSecret(code), data: stored, expires_at: expiresAt });
  return { id, code, expiresAt };
}

/**
 * Finds and locks the code, then applies the state checks in a fixed order: not found (also for
 * another purpose or another project, so a code never works outside the flow it was made for),
 * already used, expired, attempts exhausted. Nothing is written when a check fails.
 */
async function useCode<T>(trx: Executor, tenancy: Tenancy, purpose: string, code: string, markUsed: boolean): Promise<VerifiedCode<T>> {
  const row = await q.lockCodeByHash(trx, tenancy.id, hashSecret(code));
  if (!row || row.purpose !== purpose) throw new KnownErrors.VerificationCodeNotFound();
  if (row.used_at) throw new KnownErrors.VerificationCodeAlreadyUsed();
  if (row.expires_at.getTime() <= Date.now()) throw new KnownErrors.VerificationCodeExpired();
  const stored = row.data as StoredData;
  if (row.attempt_count >= stored.max_attempts) throw new KnownErrors.VerificationCodeMaxAttemptsReached();
  await q.recordAttempt(trx, tenancy.id, row.id, { markUsed });
  return { id: row.id, data: stored.payload as T, expiresAt: row.expires_at, createdAt: row.created_at };
}

/** Validates a code without using it up (check-code and details calls); counts as one attempt. */
export function checkCode<T>(trx: Executor, tenancy: Tenancy, purpose: string, code: string): Promise<VerifiedCode<T>> {
  return useCode<T>(trx, tenancy, purpose, code, false);
}

/** Validates and uses up a code: a second use is ALREADY_USED. */
export function consumeCode<T>(trx: Executor, tenancy: Tenancy, purpose: string, code: string): Promise<VerifiedCode<T>> {
  return useCode<T>(trx, tenancy, purpose, code, true);
}

/** Withdraws codes (a revoked invitation): they become CODE_NOT_FOUND. */
export function deleteCodes(trx: Executor, tenancy: Tenancy, ids: readonly string[]): Promise<void> {
  return q.deleteCodes(trx, tenancy.id, ids);
}

/**
 * Queues an email in the outbox, in the caller's transaction: if the action rolls back, no email
 * goes out. Delivery (SMTP, retries, templates) is the email issue's worker; until it runs, the
 * row stays pending and is visible to the project owner.
 */
export async function enqueueEmail(trx: Executor, tenancy: Tenancy | null, email: { to: string; subject: string; html: string; text: string }): Promise<string> {
  const id = randomUUID();
  await q.insertOutboxEmail(trx, { id, tenancy_id: tenancy?.id ?? null, to_email: email.to, subject: email.subject, html: email.html, text: email.text });
  return id;
}

/** Escapes text for HTML email bodies: team and project names are user-controlled. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `callbackUrl` with `code` set as a query parameter (an existing `code` is replaced). */
export function linkWithCode(callbackUrl: string, code: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set('code', code);
  return url.toString();
}
