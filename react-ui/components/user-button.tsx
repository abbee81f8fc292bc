/**
 * The user button: the signed-in user's avatar, opening a menu (account settings, sign out) that
 * follows the ARIA menu-button pattern: Enter/Space/ArrowDown open it on the first item, arrows
 * move, Escape closes and gives focus back to the button, Tab leaves it.
 */
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { useLatchContext, useUser } from '../hooks.js';
import { withReturnTo } from '../urls.js';
import { Avatar, LatchRoot, Link } from './ui.js';
import { useRunAsync } from '../async-errors.js';

/**
 * The signed-in user's avatar and menu, or a "Sign in" link when nobody is signed in.
 *
 * @example
 * <header><Suspense fallback={null}><UserButton /></Suspense></header>
 */
export function UserButton() {
  const user = useUser();
  const { urls, navigate } = useLatchContext();
  const runAsync = useRunAsync();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent) => {
      if (!anchor.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);

  useEffect(() => {
    if (open) anchor.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [open]);

  if (!user) {
    // Come back here after signing in, unless "here" is a handler page (sign-in itself, say).
    const onHandlerPage = typeof window === 'undefined' || window.location.pathname.startsWith(`${urls.handler.replace(/\/$/, '')}/`);
    const here = onHandlerPage ? null : `${window.location.pathname}${window.location.search}${window.location.hash}`;
    return (
      <LatchRoot className="latch-menu-anchor">
        <Link href={withReturnTo(urls.signIn, here)}>Sign in</Link>
      </LatchRoot>
    );
  }
  const name = user.display_name ?? user.primary_email ?? 'Account';

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(anchor.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const index = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = items[(index + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length];
      next?.focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      items[event.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (event.key === 'Tab') {
      setOpen(false);
    }
  };
  const go = (to: string) => {
    setOpen(false);
    runAsync(navigate(to));
  };

  return (
    <LatchRoot className="latch-menu-anchor">
      <div ref={anchor}>
        <button
          ref={button}
          type="button"
          className="latch-user-button"
          aria-haspopup="menu"
          aria-expanded={open}
          aria-controls={open ? menuId : undefined}
          onClick={() => setOpen((value) => !value)}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault();
              setOpen(true);
            }
          }}
        >
          <Avatar name={name} imageUrl={user.profile_image_url} />
          <span data-latch-user-name="">{name}</span>
          {/* Named by its content, not aria-label, so the spoken name always contains the visible one (WCAG 2.5.3). */}
          <span className="latch-sr-only"> (account menu)</span>
        </button>
        {open ? (
          <div className="latch-menu" role="menu" id={menuId} aria-label="Account" onKeyDown={onMenuKeyDown}>
            <div className="latch-menu-header" role="presentation">
              <div>{user.display_name ?? 'No display name'}</div>
              <div className="latch-menu-header-email">{user.primary_email}</div>
            </div>
            <button type="button" role="menuitem" className="latch-menu-item" tabIndex={-1} onClick={() => go(urls.accountSettings)}>
              Account settings
            </button>
            <button type="button" role="menuitem" className="latch-menu-item" tabIndex={-1} onClick={() => go(urls.signOut)}>
              Sign out
            </button>
          </div>
        ) : null}
      </div>
    </LatchRoot>
  );
}
