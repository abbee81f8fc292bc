import { openEmailBody } from '../domains/emails/sealed-body.js';
import type { Harness } from './harness.js';

/**
 * Email bodies are sealed at rest (domains/emails/sealed-body.ts); tests that read a code out of a
 * queued email open it the way the worker does, with the server's own secret.
 */
export function openOutboxRow(h: Harness, row: { id: string; html: string; text: string }): { html: string; text: string } {
  return openEmailBody(h.latch.deps.env.secret, row.id, row);
}

/** The opened plain-text bodies of every email a tenancy queued. */
export async function outboxTexts(h: Harness, tenancyId: string): Promise<string[]> {
  const rows = await h.latch.deps.db.selectFrom('email_outbox').select(['id', 'html', 'text']).where('tenancy_id', '=', tenancyId).execute();
  return rows.map((row) => openOutboxRow(h, row).text);
}

/** The `code` query value of the first link carrying one in each email text, in order (texts without one are skipped). */
export function linkCodes(texts: string[], pattern: RegExp = /[?&]code=([^&\s]+)/): string[] {
  return texts.map((text) => pattern.exec(text)?.[1]).filter((code): code is string => !!code);
}
