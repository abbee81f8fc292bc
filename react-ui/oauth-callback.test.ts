import { describe, expect, it } from 'vitest';
import { oauthCallbackTarget } from './handler/oauth-callback.js';
import { resolveUrls } from './urls.js';

/** Where the oauth-callback page sends the user after a completed flow (spec section 2). */
describe('oauthCallbackTarget', () => {
  const urls = resolveUrls({ urls: { afterSignIn: '/dashboard', afterSignUp: '/welcome' } });
  const origin = 'https://app.example.com';
  const signIn = (is_new_user: boolean) => ({ type: 'authenticate' as const, is_new_user, after_callback_redirect_url: null });

  it('a new user goes to after-sign-up, any other user to after-sign-in', () => {
    expect(oauthCallbackTarget(signIn(true), urls, null, origin)).toBe('/welcome');
    expect(oauthCallbackTarget(signIn(false), urls, null, origin)).toBe('/dashboard');
    // Defaults chain as everywhere: after-sign-up is after-sign-in is home.
    expect(oauthCallbackTarget(signIn(true), resolveUrls(), null, origin)).toBe('/');
  });

  it('after_auth_return_to wins for sign-ins, new user or not', () => {
    expect(oauthCallbackTarget(signIn(true), urls, '/notes?tab=2', origin)).toBe('/notes?tab=2');
    expect(oauthCallbackTarget(signIn(false), urls, '/notes', origin)).toBe('/notes');
  });

  it('a linked account returns to afterCallbackRedirectUrl, made relative when on this site, never off-site', () => {
    const link = (after: string | null) => ({ type: 'link' as const, is_new_user: false, after_callback_redirect_url: after });
    expect(oauthCallbackTarget(link('https://app.example.com/handler/account-settings?x=1#c'), urls, '/ignored', origin)).toBe(
      '/handler/account-settings?x=1#c',
    );
    expect(oauthCallbackTarget(link('/settings'), urls, null, origin)).toBe('/settings');
    expect(oauthCallbackTarget(link('https://evil.example/steal'), urls, null, origin)).toBe('/dashboard');
    expect(oauthCallbackTarget(link('//evil.example'), urls, null, origin)).toBe('/dashboard');
    expect(oauthCallbackTarget(link(null), urls, null, origin)).toBe('/dashboard');
  });
});
