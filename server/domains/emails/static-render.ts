import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

/** The doctype React Email's `render` puts first (XHTML transitional, what email clients expect). */
export const EMAIL_DOCTYPE = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

/**
 * What React Email's `render` returns, for a tree that cannot suspend, at a third of its cost:
 * `render` streams (renderToReadableStream inside Suspense and an error boundary), which costs
 * about 3 ms more per email than one synchronous renderToStaticMarkup, and adds nothing but
 * Suspense markers (`<!--$-->`, `<!--html-->`) that a mailbox ignores. Only Tailwind suspends (its
 * compiler loads asynchronously), so a tree with classes still goes through `render`. Like
 * `render`, image preload hints React adds for a browser are dropped: an email has no use for them.
 *
 * Also the only render the main thread may run (the built-in emails, compose.tsx): `render` goes
 * through react-dom/server's streaming renderer, whose AsyncLocalStorage, once run, turns on
 * async_hooks' promise hooks for the whole process (server/test/promise-hooks.test.ts).
 */
export function renderStatic(element: ReactElement): string {
  const markup = renderToStaticMarkup(element).replace(/<link\b[^>]*>/gi, (tag) => (/\brel="preload"/i.test(tag) && /\bas="image"/i.test(tag) ? '' : tag));
  return EMAIL_DOCTYPE + markup.replace(/<!DOCTYPE.*?>/, '');
}
