import { describe, expect, it } from 'vitest';
import { isTrustedRedirectUrl, matchesTrustedDomain, parseTrustedDomain, type RedirectPolicy } from './urls.js';

/**
 * The redirect/callback URL matcher (spec section 5: URLs, wildcard domains, localhost): every
 * link Latch emails and every callback it accepts goes through isTrustedRedirectUrl.
 */

const policy = (domains: string[], allowLocalhost = false): RedirectPolicy => ({ domains: domains.map((domain) => ({ domain })), allowLocalhost });

describe('exact trusted domains', () => {
  const p = policy(['https://app.example.com']);
  it.each([
    'https://app.example.com',
    'https://app.example.com/',
    'https://app.example.com/handler/email-verification',
    'https://app.example.com/handler/password-reset?after=%2Fhome#top',
    'https://APP.Example.COM/x',
    'https://app.example.com:443/x',
  ])('trusts %s', (url) => {
    expect(isTrustedRedirectUrl(url, p)).toBe(true);
  });

  it.each([
    ['another scheme', 'http://app.example.com/x'],
    ['another port', 'https://app.example.com:8443/x'],
    ['a subdomain', 'https://evil.app.example.com/x'],
    ['the parent domain', 'https://example.com/x'],
    ['a suffix attack', 'https://app.example.com.evil.test/x'],
    ['a prefix attack', 'https://evilapp.example.com/x'],
    ['a trailing-dot host', 'https://app.example.com./x'],
    ['credentials that disguise another host', 'https://app.example.com@evil.test/x'],
    ['credentials on the right host', 'https://user:pass@app.example.com/x'],
    ['a user alone', 'https://user@app.example.com/x'],
    ['a javascript: URL', 'javascript:alert(1)//app.example.com'],
    ['a data: URL', 'data:text/html,<a href="https://app.example.com">'],
    ['a relative URL', '/handler/email-verification'],
    ['a scheme-relative URL', '//app.example.com/x'],
    ['a backslash trick', 'https:\\\\evil.test\\app.example.com'],
    ['an ftp URL', 'ftp://app.example.com/x'],
    ['an empty string', ''],
    ['not a URL', 'not a url'],
    ['a space inside', 'https://app.example.com/a b'],
    ['a leading space', ' https://app.example.com/x'],
    ['a tab inside the host', 'https://app.exa\tmple.com/x'],
    ['a newline', 'https://app.example.com/x\n'],
    ['a NUL', 'https://app.example.com/\u0000x'],
  ])('refuses %s', (_what, url) => {
    expect(isTrustedRedirectUrl(url, p)).toBe(false);
  });

  it('uses a port the domain names, and only that one', () => {
    const ported = policy(['http://api.test.dev:8080']);
    expect(isTrustedRedirectUrl('http://api.test.dev:8080/cb', ported)).toBe(true);
    expect(isTrustedRedirectUrl('http://api.test.dev/cb', ported)).toBe(false);
    expect(isTrustedRedirectUrl('http://api.test.dev:8081/cb', ported)).toBe(false);
    // A domain that spells out the default port means the default port.
    expect(isTrustedRedirectUrl('https://app.example.com/x', policy(['https://app.example.com:443']))).toBe(true);
  });

  it('keeps a link inside the path the domain names, whole segments only', () => {
    const pathed = policy(['https://example.com/app']);
    expect(isTrustedRedirectUrl('https://example.com/app', pathed)).toBe(true);
    expect(isTrustedRedirectUrl('https://example.com/app/handler/x', pathed)).toBe(true);
    expect(isTrustedRedirectUrl('https://example.com/application', pathed)).toBe(false);
    expect(isTrustedRedirectUrl('https://example.com/other', pathed)).toBe(false);
    // Dot segments are resolved before matching.
    expect(isTrustedRedirectUrl('https://example.com/app/../admin', pathed)).toBe(false);
    expect(isTrustedRedirectUrl('https://example.com/app/', policy(['https://example.com/app/']))).toBe(true);
    // A query or hash on the domain does not narrow anything.
    expect(isTrustedRedirectUrl('https://example.com/x', policy(['https://example.com/?a=1#b']))).toBe(true);
  });

  it('matches internationalised domains in either spelling', () => {
    const idn = policy(['https://bücher.example']);
    expect(isTrustedRedirectUrl('https://xn--bcher-kva.example/x', idn)).toBe(true);
    expect(isTrustedRedirectUrl('https://bücher.example/x', idn)).toBe(true);
    expect(isTrustedRedirectUrl('https://bucher.example/x', idn)).toBe(false);
  });

  it('trusts any of several domains, and nothing with none', () => {
    const several = policy(['https://a.example.com', 'https://b.example.org']);
    expect(isTrustedRedirectUrl('https://b.example.org/x', several)).toBe(true);
    expect(isTrustedRedirectUrl('https://c.example.com/x', several)).toBe(false);
    expect(isTrustedRedirectUrl('https://a.example.com/x', policy([]))).toBe(false);
  });
});

describe('wildcard trusted domains', () => {
  it('* stands for one label (or part of one), never for a dot', () => {
    const p = policy(['https://*.example.com']);
    expect(isTrustedRedirectUrl('https://a.example.com/x?y=1', p)).toBe(true);
    expect(isTrustedRedirectUrl('https://preview-123.example.com/x', p)).toBe(true);
    expect(isTrustedRedirectUrl('https://a.b.example.com/x', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://example.com/x', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://aexample.com/x', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://a.example.com.evil.test/x', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://evil.test/a.example.com', p)).toBe(false);
    expect(isTrustedRedirectUrl('http://a.example.com/x', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://a.example.com:444/x', p)).toBe(false);
  });

  it('* inside a label', () => {
    const p = policy(['https://app-*.example.com']);
    expect(isTrustedRedirectUrl('https://app-pr42.example.com/', p)).toBe(true);
    expect(isTrustedRedirectUrl('https://app-.example.com/', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://app-pr42.x.example.com/', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://web-pr42.example.com/', p)).toBe(false);
  });

  it('several * each stand for one label', () => {
    const p = policy(['https://*.*.example.com']);
    expect(isTrustedRedirectUrl('https://a.b.example.com/', p)).toBe(true);
    expect(isTrustedRedirectUrl('https://a.example.com/', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://a.b.c.example.com/', p)).toBe(false);
  });

  it('** stands for any run of labels', () => {
    const p = policy(['https://**.example.com']);
    expect(isTrustedRedirectUrl('https://a.example.com/', p)).toBe(true);
    expect(isTrustedRedirectUrl('https://a.b.c.example.com/', p)).toBe(true);
    expect(isTrustedRedirectUrl('https://example.com/', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://a.example.com.evil.test/', p)).toBe(false);
  });

  it('keeps the port and path rules with wildcards', () => {
    const p = policy(['https://*.example.com:8443/app']);
    expect(isTrustedRedirectUrl('https://a.example.com:8443/app/cb', p)).toBe(true);
    expect(isTrustedRedirectUrl('https://a.example.com/app/cb', p)).toBe(false);
    expect(isTrustedRedirectUrl('https://a.example.com:8443/other', p)).toBe(false);
  });

  it('matches letter case and internationalised labels around a wildcard', () => {
    expect(isTrustedRedirectUrl('https://a.example.com/', policy(['HTTPS://*.EXAMPLE.COM']))).toBe(true);
    // A wildcard domain is written in ASCII (validateTrustedDomain), so an IDN in it is punycode.
    expect(isTrustedRedirectUrl('https://a.bücher.example/', policy(['https://*.xn--bcher-kva.example']))).toBe(true);
    expect(parseTrustedDomain('https://*.bücher.example')).toBeNull();
  });

  it('a regex metacharacter in a domain is literal', () => {
    // `.` must not match any character.
    expect(isTrustedRedirectUrl('https://aXexample.com/', policy(['https://a.example.com']))).toBe(false);
    expect(isTrustedRedirectUrl('https://a.bXexample.com/', policy(['https://*.b.example.com']))).toBe(false);
  });
});

describe('invalid trusted domains match nothing', () => {
  it.each([
    'https://example.com/*',
    'https://*.example.com.',
    'https://.*.example.com',
    'https://*..example.com',
    'https://user@*.example.com',
    'ftp://*.example.com',
    'example.com',
    '*',
    '',
    'https://exa mple.com',
  ])('%s', (domain) => {
    expect(parseTrustedDomain(domain)).toBeNull();
    for (const url of ['https://example.com/', 'https://a.example.com/', 'https://example.com/x']) expect(matchesTrustedDomain(new URL(url), domain)).toBe(false);
  });
});

describe('localhost (spec section 5: localhost, *.localhost, 127.x.x.x)', () => {
  const on = policy([], true);
  const off = policy([], false);

  it.each([
    'http://localhost:3000/handler/x',
    'http://localhost/x',
    'https://localhost:8443/x',
    'http://app.localhost:5173/x',
    'http://127.0.0.1:3000/x',
    'http://127.1.2.3/x',
    'http://[::1]:3000/x',
    // The URL parser normalises other spellings of 127.0.0.1 first.
    'http://127.1/x',
    'http://0x7f.0.0.1/x',
  ])('%s: trusted while allow_localhost is on, refused when it is off', (url) => {
    expect(isTrustedRedirectUrl(url, on)).toBe(true);
    expect(isTrustedRedirectUrl(url, off)).toBe(false);
  });

  it.each(['http://localhost.evil.test/x', 'http://mylocalhost/x', 'http://128.0.0.1/x', 'http://10.0.0.1/x', 'http://0.0.0.0/x', 'http://localhost@evil.test/x', 'http://evil.test/?next=http://localhost', 'file://localhost/etc/passwd'])(
    '%s is not localhost',
    (url) => {
      expect(isTrustedRedirectUrl(url, on)).toBe(false);
    },
  );

  it('a localhost trusted domain works without allow_localhost, but only with its port', () => {
    const p = policy(['http://localhost:3000']);
    expect(isTrustedRedirectUrl('http://localhost:3000/cb', p)).toBe(true);
    expect(isTrustedRedirectUrl('http://localhost:4000/cb', p)).toBe(false);
  });
});
