import { describe, expect, it } from 'vitest';
import { type NavigationWindow, isLeavingPage, redirectTo } from './navigation.js';

function fakeWindow() {
  const calls: string[] = [];
  const win: NavigationWindow = {
    location: { assign: (url) => calls.push(`assign ${url}`) },
    history: { pushState: (_d, _u, url) => calls.push(`push ${url}`) },
    dispatchEvent: (event) => (calls.push(`event ${event.type}`), true),
  };
  return { win, calls };
}

describe('redirectTo', () => {
  it('window: a full page load', async () => {
    const { win, calls } = fakeWindow();
    expect(isLeavingPage()).toBe(false);
    expect(await redirectTo('window', '/home', win)).toBe(true);
    expect(calls).toEqual(['assign /home']);
    // From now on the page is going away: components must not redirect it again.
    expect(isLeavingPage()).toBe(true);
  });
  it('history: pushState then popstate, so the handler re-renders', async () => {
    const { win, calls } = fakeWindow();
    expect(await redirectTo('history', '/handler/sign-in?x=1', win)).toBe(true);
    expect(calls).toEqual(['push /handler/sign-in?x=1', 'event popstate']);
  });
  it('a custom navigate object', async () => {
    const seen: string[] = [];
    expect(await redirectTo({ navigate: (to) => void seen.push(to) }, '/x')).toBe(true);
    expect(seen).toEqual(['/x']);
  });
  it('none: nothing happens', async () => {
    const { win, calls } = fakeWindow();
    expect(await redirectTo('none', '/x', win)).toBe(false);
    expect(calls).toEqual([]);
  });
  it.each(['window', 'history', 'none'] as const)('%s refuses absolute URLs before doing anything', async (method) => {
    const { win, calls } = fakeWindow();
    await expect(redirectTo(method, 'https://evil.example/', win)).rejects.toThrow('Redirect URL is not trusted; should be relative.');
    await expect(redirectTo(method, '//evil.example/', win)).rejects.toThrow('Redirect URL is not trusted; should be relative.');
    expect(calls).toEqual([]);
  });
  it('outside a browser, window needs a navigate function', async () => {
    await expect(redirectTo('window', '/x', undefined)).rejects.toThrow(/outside a browser/);
  });
});
