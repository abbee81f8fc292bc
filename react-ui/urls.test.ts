import { describe, expect, it } from 'vitest';
import {
  HANDLER_ROUTES,
  afterAuthUrl,
  assertRelativeUrl,
  currentRelativeUrl,
  isRelativeUrl,
  mfaAttemptCodeKey,
  normalizeHandlerPath,
  parseHandlerRoute,
  readReturnTo,
  resolveUrls,
  withReturnTo,
} from './urls.js';

describe('handler path', () => {
  it('defaults to /handler and must start with /', () => {
    expect(normalizeHandlerPath()).toBe('/handler');
    expect(normalizeHandlerPath('/auth/')).toBe('/auth');
    expect(() => normalizeHandlerPath('handler')).toThrow('Handler path must start with /');
    expect(() => normalizeHandlerPath('')).toThrow('Handler path must start with /');
    expect(() => resolveUrls({ handlerPath: 'https://x.example/handler' })).toThrow('Handler path must start with /');
  });

  it('parses every route exactly, under any base', () => {
    for (const route of HANDLER_ROUTES) {
      expect(parseHandlerRoute(`/handler/${route}`)).toBe(route);
      expect(parseHandlerRoute(`/handler/${route}/`)).toBe(route);
      expect(parseHandlerRoute(`/auth/${route}`, '/auth')).toBe(route);
      expect(parseHandlerRoute(`/${route}`, '/')).toBe(route);
    }
    expect(parseHandlerRoute('/handler/cli-auth-confirm')).toBe('cli-auth-confirm');
    expect(parseHandlerRoute('/handler/sign-inx')).toBeNull();
    expect(parseHandlerRoute('/handlerx/sign-in')).toBeNull();
    expect(parseHandlerRoute('/handler')).toBeNull();
    expect(parseHandlerRoute('/handler/sign-in/extra')).toBeNull();
    expect(parseHandlerRoute('/other/sign-in')).toBeNull();
    expect(parseHandlerRoute('/handler/__proto__')).toBeNull();
  });
});

describe('resolveUrls', () => {
  it('has the spec defaults', () => {
    const urls = resolveUrls();
    expect(urls).toMatchObject({
      handler: '/handler',
      home: '/',
      afterSignIn: '/',
      afterSignUp: '/',
      afterSignOut: '/',
      signIn: '/handler/sign-in',
      signUp: '/handler/sign-up',
      signOut: '/handler/sign-out',
      emailVerification: '/handler/email-verification',
      passwordReset: '/handler/password-reset',
      forgotPassword: '/handler/forgot-password',
      oauthCallback: '/handler/oauth-callback',
      magicLinkCallback: '/handler/magic-link-callback',
      accountSettings: '/handler/account-settings',
      error: '/handler/error',
      teamInvitation: '/handler/team-invitation',
      mfa: '/handler/mfa',
      cliAuthConfirm: '/handler/cli-auth-confirm',
    });
  });

  it('chains the defaults: after-sign-up → after-sign-in → home, after-sign-out → home', () => {
    expect(resolveUrls({ urls: { home: '/dash' } })).toMatchObject({ home: '/dash', afterSignIn: '/dash', afterSignUp: '/dash', afterSignOut: '/dash' });
    expect(resolveUrls({ urls: { afterSignIn: '/in' } })).toMatchObject({ home: '/', afterSignIn: '/in', afterSignUp: '/in', afterSignOut: '/' });
    expect(resolveUrls({ urls: { afterSignUp: '/welcome', afterSignOut: '/bye' } })).toMatchObject({
      afterSignIn: '/',
      afterSignUp: '/welcome',
      afterSignOut: '/bye',
    });
  });

  it('refuses an override that is not relative, when the app starts', () => {
    expect(() => resolveUrls({ urls: { afterSignIn: 'https://evil.example/' } })).toThrow('Redirect URL is not trusted; should be relative.');
    expect(() => resolveUrls({ urls: { home: '//evil.example' } })).toThrow('Redirect URL is not trusted; should be relative.');
    expect(() => resolveUrls({ urls: { signIn: 'javascript:alert(1)' } })).toThrow('Redirect URL is not trusted; should be relative.');
  });

  it('moves every route with the handler path, and lets each be overridden', () => {
    const urls = resolveUrls({ handlerPath: '/auth', urls: { signIn: '/login', afterSignIn: undefined } });
    expect(urls.signIn).toBe('/login');
    expect(urls.signUp).toBe('/auth/sign-up');
    expect(urls.handler).toBe('/auth');
    expect(urls.afterSignIn).toBe('/');
  });
});

describe('relative URLs only', () => {
  const relative = ['/', '/dashboard', '/a?b=c#d', 'settings', '?tab=2', '#top', '/handler/sign-in?after_auth_return_to=%2Fx'];
  const absolute = [
    'https://evil.example/',
    'http://localhost:3000/x',
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    ' //evil.example',
    '/\t/evil.example',
    '\n//evil.example',
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,hi',
    'mailto:a@b.co',
    '',
  ];
  it.each(relative)('%s is relative', (url) => {
    expect(isRelativeUrl(url)).toBe(true);
    expect(assertRelativeUrl(url)).toBe(url);
  });
  it.each(absolute)('%j is refused with the spec message', (url) => {
    expect(isRelativeUrl(url)).toBe(false);
    expect(() => assertRelativeUrl(url)).toThrow('Redirect URL is not trusted; should be relative.');
  });
});

describe('after_auth_return_to', () => {
  it('is added to a URL, keeping its query and hash', () => {
    expect(withReturnTo('/handler/sign-in', '/protected?x=1')).toBe('/handler/sign-in?after_auth_return_to=%2Fprotected%3Fx%3D1');
    expect(withReturnTo('/handler/sign-in?a=b#h', '/p')).toBe('/handler/sign-in?a=b&after_auth_return_to=%2Fp#h');
    expect(withReturnTo('/handler/sign-in', null)).toBe('/handler/sign-in');
    expect(withReturnTo('/handler/sign-in', 'https://evil.example')).toBe('/handler/sign-in');
  });

  it('is read back only when relative', () => {
    expect(readReturnTo('?after_auth_return_to=%2Fprotected%3Fx%3D1')).toBe('/protected?x=1');
    expect(readReturnTo('?after_auth_return_to=https%3A%2F%2Fevil.example')).toBeNull();
    expect(readReturnTo('?after_auth_return_to=%2F%2Fevil.example')).toBeNull();
    expect(readReturnTo('')).toBeNull();
  });

  it('wins over after-sign-in and after-sign-up', () => {
    const urls = resolveUrls({ urls: { afterSignIn: '/in', afterSignUp: '/up' } });
    expect(afterAuthUrl('sign-in', urls, '')).toBe('/in');
    expect(afterAuthUrl('sign-up', urls, '')).toBe('/up');
    expect(afterAuthUrl('sign-in', urls, '?after_auth_return_to=%2Fback')).toBe('/back');
    expect(afterAuthUrl('sign-up', urls, '?after_auth_return_to=%2Fback')).toBe('/back');
    expect(afterAuthUrl('sign-up', urls, '?after_auth_return_to=https%3A%2F%2Fevil.example')).toBe('/up');
  });

  it('round-trips the current page', () => {
    const here = currentRelativeUrl({ pathname: '/orders', search: '?page=2', hash: '#last' });
    const signIn = withReturnTo('/handler/sign-in', here);
    expect(readReturnTo(new URL(signIn, 'http://localhost').search)).toBe('/orders?page=2#last');
  });
});

it('keeps the MFA attempt code under a key ending in mfa_attempt_code', () => {
  expect(mfaAttemptCodeKey('p1')).toMatch(/mfa_attempt_code$/);
  expect(mfaAttemptCodeKey('p1')).not.toBe(mfaAttemptCodeKey('p2'));
});
