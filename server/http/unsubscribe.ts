import type { Request, Response } from 'express';
import { setKnownErrorHeaders } from '../trpc/header-dialect.js';
import type { Deps } from '../deps.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { toWireError } from '../errors/wire.js';
import { describeUnsubscribe, unsubscribe, type UnsubscribeDescription } from '../domains/notifications/unsubscribe.js';
import { sendError } from '../trpc/rest.js';

/**
 * `/api/v1/emails/unsubscribe?token=…`, the link in every email of a category that can be disabled
 * (domains/notifications/unsubscribe-links.ts), used without signing in:
 * - GET shows a confirmation page with one button, and changes nothing: mail scanners and link
 *   previews open every link in a message, and must not unsubscribe anyone;
 * - POST with the body `List-Unsubscribe=One-Click` (RFC 8058: what Gmail, Yahoo and Apple Mail
 *   send from their own unsubscribe button, and what the page's button sends) turns the category
 *   off. A form post gets the page back; a link that is not valid is a catalogued error.
 */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: Response, status: number, title: string, body: string): void {
  res.status(status);
  res.setHeader('cache-control', 'no-store');
  // The page posts only to itself; nothing else may load or run.
  res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
  res.setHeader('referrer-policy', 'no-referrer');
  res
    .type('html')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>` +
        `<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5"><h1 style="font-size:1.4rem">${escapeHtml(title)}</h1>${body}</body></html>`,
    );
}

function what(d: UnsubscribeDescription): string {
  return `<strong>${escapeHtml(d.categoryName)}</strong> emails from <strong>${escapeHtml(d.projectName)}</strong>`;
}

export async function handleUnsubscribePage(deps: Deps, req: Request, res: Response): Promise<void> {
  const token = req.query.token;
  try {
    const description = await describeUnsubscribe(deps, token);
    const action = `?token=${encodeURIComponent(String(token))}`;
    page(
      res,
      200,
      'Unsubscribe',
      `<p>Stop receiving ${what(description)}?</p>` +
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
        `<button type="submit" style="font-size:1rem;padding:.5rem 1rem">Unsubscribe</button></form>` +
        '<p style="color:#555">You can turn these emails on again in your account settings.</p>',
    );
  } catch (error) {
    const wire = toWireError(error, String(res.locals.requestId));
    if (wire.unexpected) throw error;
    setKnownErrorHeaders(res, wire.body.code);
    page(res, wire.status, 'This link does not work', `<p>${escapeHtml(wire.body.error)}</p>`);
  }
}

export async function handleUnsubscribePost(deps: Deps, req: Request, res: Response): Promise<void> {
  const requestId = String(res.locals.requestId);
  try {
    const body = req.body as Record<string, unknown> | undefined;
    if (body?.['List-Unsubscribe'] !== 'One-Click')
      throw new KnownErrors.SchemaError('Request validation failed:\n  - body must be List-Unsubscribe=One-Click (RFC 8058)');
    const description = await unsubscribe(deps, req.query.token);
    page(res, 200, 'You are unsubscribed', `<p>You will no longer receive ${what(description)}.</p>`);
  } catch (error) {
    sendError(req, res, deps, requestId, error);
  }
}
