/**
 * One-click unsubscribe links (RFC 8058): `<base>/api/v1/emails/unsubscribe?token=…`, where the
 * token names the tenancy, the user and the category and carries an HMAC-SHA256 over the three
 * under a key derived from LATCH_SECRET. Changing any part (another user, another category,
 * another project's tenancy) breaks the signature, so a link only ever turns off the one category
 * for the one user it was sent to.
 *
 * The links do not expire. Mail clients and providers (Gmail and Yahoo require one-click
 * unsubscribe of bulk senders) use the link whenever the reader acts, which can be months after
 * the email was sent, and an unsubscribe link that stopped working is both a compliance problem
 * and a push toward the spam button. What a leaked link can do is small and undoable: turn off one
 * category the user can turn on again in their account settings. Rotating LATCH_SECRET revokes
 * every link at once.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Executor } from '../../db/executor.js';
import { deriveKey } from '../../crypto/encryption.js';

export const UNSUBSCRIBE_PATH = '/api/v1/emails/unsubscribe';

interface LinkSigner {
  key: Buffer;
  baseUrl: () => string;
}

/**
 * The signer of each running server, by its database. The send pipeline asks for a link with only
 * an executor in hand (delivery-rules.ts keeps the seam's signature): the database itself finds its
 * server; a transaction (which does not name its database) uses the most recently started one,
 * which in production is the only one in the process.
 */
const signers = new Map<Executor, LinkSigner>();
let latest: LinkSigner | null = null;

/** Called once per server at start-up; the returned function forgets it at shutdown. */
export function registerUnsubscribeSigner(deps: Deps): () => void {
  const signer: LinkSigner = { key: deriveKey(deps.env.secret, 'unsubscribe-links'), baseUrl: deps.baseUrl };
  signers.set(deps.db, signer);
  latest = signer;
  return () => {
    signers.delete(deps.db);
    if (latest === signer) latest = [...signers.values()].at(-1) ?? null;
  };
}

function signerFor(db: Executor): LinkSigner {
  const signer = signers.get(db) ?? latest;
  if (!signer) throw new Error('No unsubscribe link signer: registerUnsubscribeSigner(deps) runs at server start-up');
  return signer;
}

export interface UnsubscribeTarget {
  tenancyId: string;
  userId: string;
  categoryId: string;
}

function signature(key: Buffer, target: UnsubscribeTarget): Buffer {
  return createHmac('sha256', key).update(`latch-unsubscribe\n${target.tenancyId}\n${target.userId}\n${target.categoryId}`).digest();
}

export function unsubscribeUrl(db: Executor, target: UnsubscribeTarget): string {
  const signer = signerFor(db);
  const token = [target.tenancyId, target.userId, target.categoryId, signature(signer.key, target).toString('base64url')].join('.');
  return `${signer.baseUrl()}${UNSUBSCRIBE_PATH}?token=${token}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The target of a token this server signed, or null for anything else (tampered, cut, foreign). */
export function verifyUnsubscribeToken(deps: Deps, token: unknown): UnsubscribeTarget | null {
  if (typeof token !== 'string' || token.length > 300) return null;
  const [tenancyId, userId, categoryId, given, ...rest] = token.split('.');
  if (rest.length || !tenancyId || !userId || !categoryId || !given) return null;
  if (![tenancyId, userId, categoryId].every((id) => UUID.test(id))) return null;
  const target = { tenancyId, userId, categoryId };
  // Compared as text: base64url decoding skips stray characters, so a decoded comparison would
  // accept a signature with junk appended.
  const expected = Buffer.from(signature(deriveKey(deps.env.secret, 'unsubscribe-links'), target).toString('base64url'));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? target : null;
}
