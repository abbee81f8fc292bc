import { openEmailBody } from '../domains/emails/sealed-body.js';
import type { ApiResponse, Harness, ProjectFixture } from './harness.js';
import { expectStatus } from './team-fixtures.js';

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

/**
 * The code in the link of the next email to `to`: one the project's outbox did not hold before
 * `trigger` (which must answer 200) ran, read through the admin API once the worker has taken it.
 */
export async function codeMailedTo(h: Harness, project: ProjectFixture, to: string, trigger: () => Promise<ApiResponse>): Promise<string> {
  const before = new Set(((await h.get('/internal/emails', project.admin())).body.items as { id: string }[]).map((e) => e.id));
  expectStatus(await trigger(), 200);
  for (let i = 0; i < 400; i++) {
    const items = (await h.get('/internal/emails', project.admin())).body.items as { id: string; to: string; state: string }[];
    const item = items.find((e) => e.to.toLowerCase() === to.toLowerCase() && !before.has(e.id) && e.state !== 'pending');
    if (item) {
      const detail = await h.get(`/internal/emails/${item.id}`, project.admin());
      return new URL(/https?:\/\/\S+/.exec(detail.body.text)![0]).searchParams.get('code')!;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no email to ${to}`);
}
