import { describe, expect, it } from 'vitest';
import {
  isTrustedRedirectUrl,
  matchesTrustedDomain,
  matchHostPattern,
  parseTrustedDomain,
  type RedirectPolicy,
  trustedDomainReach,
  validateTrustedDomain,
} from './urls.js';

/**
 * The redirect/callback URL matcher (spec section 5: URLs, wildcard domains, localhost): every
 * link Latch emails and every callback it accepts goes through isTrustedRedirectUrl.
 */

const policy = (domains: string[], allowLocalhost = false): RedirectPolicy => ({ domains: domains.map((domain) => ({ domain })), allowLocalhost });

/** Each URL in `trusted` is trusted under the policy, and none in `refused` is. */
function expectTrust(p: RedirectPolicy, trusted: string[], refused: string[]): void {
  for (const url of trusted) expect(isTrustedRedirectUrl(url, p), url).toBe(true);
  for (const url of refused) expect(isTrustedRedirectUrl(url, p), url).toBe(false);
}

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
    expectTrust(policy(['http://api.test.dev:8080']), ['http://api.test.dev:8080/cb'], ['http://api.test.dev/cb', 'http://api.test.dev:8081/cb']);
    // A domain that spells out the default port means the default port.
    expect(isTrustedRedirectUrl('https://app.example.com/x', policy(['https://app.example.com:443']))).toBe(true);
  });

  it('keeps a link inside the path the domain names, whole segments only', () => {
    expectTrust(
      policy(['https://example.com/app']),
      ['https://example.com/app', 'https://example.com/app/handler/x'],
      // Dot segments are resolved before matching.
      ['https://example.com/application', 'https://example.com/other', 'https://example.com/app/../admin'],
    );
    expect(isTrustedRedirectUrl('https://example.com/app/', policy(['https://example.com/app/']))).toBe(true);
    // A query or hash on the domain does not narrow anything.
    expect(isTrustedRedirectUrl('https://example.com/x', policy(['https://example.com/?a=1#b']))).toBe(true);
  });

  it('matches internationalised domains in either spelling', () => {
    expectTrust(policy(['https://bücher.example']), ['https://xn--bcher-kva.example/x', 'https://bücher.example/x'], ['https://bucher.example/x']);
  });

  it('trusts any of several domains, and nothing with none', () => {
    const several = policy(['https://a.example.com', 'https://b.example.org']);
    expect(isTrustedRedirectUrl('https://b.example.org/x', several)).toBe(true);
    expect(isTrustedRedirectUrl('https://c.example.com/x', several)).toBe(false);
    expect(isTrustedRedirectUrl('https://a.example.com/x', policy([]))).toBe(false);
  });
});

describe('wildcard trusted domains', () => {
  it.each([
    {
      rule: '* stands for one label (or part of one), never for a dot',
      domain: 'https://*.example.com',
      trusted: ['https://a.example.com/x?y=1', 'https://preview-123.example.com/x'],
      refused: [
        'https://a.b.example.com/x',
        'https://example.com/x',
        'https://aexample.com/x',
        'https://a.example.com.evil.test/x',
        'https://evil.test/a.example.com',
        'http://a.example.com/x',
        'https://a.example.com:444/x',
      ],
    },
    {
      rule: '* inside a label',
      domain: 'https://app-*.example.com',
      trusted: ['https://app-pr42.example.com/'],
      refused: ['https://app-.example.com/', 'https://app-pr42.x.example.com/', 'https://web-pr42.example.com/'],
    },
    {
      rule: 'several * each stand for one label',
      domain: 'https://*.*.example.com',
      trusted: ['https://a.b.example.com/'],
      refused: ['https://a.example.com/', 'https://a.b.c.example.com/'],
    },
    {
      rule: '** stands for any run of labels',
      domain: 'https://**.example.com',
      trusted: ['https://a.example.com/', 'https://a.b.c.example.com/'],
      refused: ['https://example.com/', 'https://a.example.com.evil.test/'],
    },
    {
      rule: 'keeps the port and path rules with wildcards',
      domain: 'https://*.example.com:8443/app',
      trusted: ['https://a.example.com:8443/app/cb'],
      refused: ['https://a.example.com/app/cb', 'https://a.example.com:8443/other'],
    },
  ])('$rule', ({ domain, trusted, refused }) => {
    expectTrust(policy([domain]), trusted, refused);
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
    for (const url of ['https://example.com/', 'https://a.example.com/', 'https://example.com/x'])
      expect(matchesTrustedDomain(new URL(url), domain)).toBe(false);
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

  it.each([
    'http://localhost.evil.test/x',
    'http://mylocalhost/x',
    'http://128.0.0.1/x',
    'http://10.0.0.1/x',
    'http://0.0.0.0/x',
    'http://localhost@evil.test/x',
    'http://evil.test/?next=http://localhost',
    'file://localhost/etc/passwd',
  ])('%s is not localhost', (url) => {
    expect(isTrustedRedirectUrl(url, on)).toBe(false);
  });

  it('a localhost trusted domain works without allow_localhost, but only with its port', () => {
    const p = policy(['http://localhost:3000']);
    expect(isTrustedRedirectUrl('http://localhost:3000/cb', p)).toBe(true);
    expect(isTrustedRedirectUrl('http://localhost:4000/cb', p)).toBe(false);
  });
});

describe('stacked wildcards (issue 13 item 2)', () => {
  it.each([
    'https://***.example.com',
    'https://****************.x.com',
    'https://a**.example.com',
    'https://**b.example.com',
    'https://*.***.example.com',
    'https://x.**-**.example.com',
  ])('%s is refused at validation and matches nothing', (domain) => {
    expect(validateTrustedDomain(domain)).toMatch(/adjacent wildcards/);
    expect(parseTrustedDomain(domain)).toBeNull();
    expect(isTrustedRedirectUrl('https://a.example.com/', policy([domain]))).toBe(false);
  });

  it('a single * and a whole ** label stay valid', () => {
    for (const domain of [
      'https://*.example.com',
      'https://**.example.com',
      'https://a-*-b.example.com',
      'https://*.**.example.com',
      'https://**.*.**.example.com',
    ])
      expect(validateTrustedDomain(domain)).toBeNull();
    expect(isTrustedRedirectUrl('https://a-x-b.example.com/', policy(['https://a-*-b.example.com']))).toBe(true);
    expect(isTrustedRedirectUrl('https://a-x.y-b.example.com/', policy(['https://a-*-b.example.com']))).toBe(false);
    expect(isTrustedRedirectUrl('https://a-b.example.com/', policy(['https://a-*-b.example.com']))).toBe(false);
    expect(isTrustedRedirectUrl('https://q.r.s.t.example.com/', policy(['https://**.*.**.example.com']))).toBe(true);
    expect(isTrustedRedirectUrl('https://q.r.example.com/', policy(['https://**.*.**.example.com']))).toBe(false);
  });

  it('* within a label backtracks correctly (several stars, repeated letters)', () => {
    expectTrust(
      policy(['https://a*a*a.example.com']),
      ['https://aXaYa.example.com/', 'https://aaaaaaa.example.com/'],
      ['https://aaaa.example.com/', 'https://aXaYb.example.com/'],
    );
  });

  it('matches a host against stacked wildcards without a blow-up, even on a pattern stored before validation refused it', () => {
    // The old matcher built a regex from the pattern: 18 stars against a 30-letter host took 1.4 s.
    const hostLabels = ['*'.repeat(64), 'x', 'com'];
    const start = performance.now();
    expect(matchHostPattern(hostLabels, `${'a'.repeat(60)}.y.com`)).toBe(false);
    expect(matchHostPattern(['**', '**', '**', '**', '**', '**', '**', '**', 'x'], `${'a.'.repeat(120)}y`)).toBe(false);
    expect(isTrustedRedirectUrl(`https://${'a'.repeat(60)}.y.com/`, policy([`https://${'*'.repeat(64)}.x.com`]))).toBe(false);
    expect(performance.now() - start).toBeLessThan(50);
  });
});

describe('encoded dot segments do not leave a path-scoped trusted domain (issue 13 item 12)', () => {
  const scoped = policy(['https://app.example.com/auth/']);
  it.each([
    'https://app.example.com/auth/..%2fadmin',
    'https://app.example.com/auth/..%2Fadmin',
    'https://app.example.com/auth/%2e%2e%2fadmin',
    'https://app.example.com/auth/%2E%2E%2Fadmin',
    'https://app.example.com/auth/.%2e%2fadmin',
    'https://app.example.com/auth/..%5cadmin',
    'https://app.example.com/auth/..%5Cadmin',
    'https://app.example.com/auth/x/..%2f..%2fadmin',
    'https://app.example.com/auth/..%252fadmin',
    'https://app.example.com/auth/%252e%252e%252fadmin',
    'https://app.example.com/auth/%25252e%25252e%25252fadmin',
    'https://app.example.com/auth/..;/admin',
    'https://app.example.com/auth/%2e%2e;x/admin',
    // These the URL parser resolves itself; they stay refused.
    'https://app.example.com/auth/../admin',
    'https://app.example.com/auth/%2e%2e/admin',
    'https://app.example.com/auth/..\\admin',
  ])('refuses %s', (url) => {
    expect(isTrustedRedirectUrl(url, scoped)).toBe(false);
  });

  it.each([
    'https://app.example.com/auth/',
    'https://app.example.com/auth/callback',
    'https://app.example.com/auth/a%2fb',
    'https://app.example.com/auth/..x/y',
    'https://app.example.com/auth/x..',
    'https://app.example.com/auth/cb?next=..%2fadmin',
  ])('still trusts %s', (url) => {
    expect(isTrustedRedirectUrl(url, scoped)).toBe(true);
  });

  it('a domain without a path has nothing to escape from', () => {
    expect(isTrustedRedirectUrl('https://app.example.com/a/..%2fb', policy(['https://app.example.com']))).toBe(true);
  });
});

describe('production mode enforces its own problems (issue 13 item 12)', () => {
  const prod = (domains: string[], allowLocalhost = true): RedirectPolicy => ({ ...policy(domains, allowLocalhost), productionMode: true });

  it.each([
    'http://localhost:3000/cb',
    'http://localhost./cb',
    'http://app.localhost/cb',
    'http://127.0.0.1/cb',
    'http://127.1/cb',
    'http://2130706433/cb',
    'http://0x7f000001/cb',
    'http://0x7f.0.0.1/cb',
    'http://0177.0.0.1/cb',
    'http://[::1]/cb',
    'http://[::ffff:127.0.0.1]/cb',
    'http://[0:0:0:0:0:0:0:1]/cb',
  ])('refuses the localhost URL %s even with allow_localhost on and a trusted domain naming it', (url) => {
    const origin = new URL(url).origin;
    expect(isTrustedRedirectUrl(url, policy([origin], true))).toBe(true);
    expect(isTrustedRedirectUrl(url, prod([origin, 'http://**', 'http://*'], true))).toBe(false);
  });

  it('refuses a bare IP address in production mode, trusts real domains', () => {
    expect(isTrustedRedirectUrl('https://10.0.0.1/cb', policy(['https://10.0.0.1']))).toBe(true);
    expect(isTrustedRedirectUrl('https://10.0.0.1/cb', prod(['https://10.0.0.1']))).toBe(false);
    expect(isTrustedRedirectUrl('https://167772161/cb', prod(['https://10.0.0.1']))).toBe(false);
    expect(isTrustedRedirectUrl('https://[2001:db8::1]/cb', prod(['https://[2001:db8::1]']))).toBe(false);
    expect(isTrustedRedirectUrl('https://app.example.com/cb', prod(['https://app.example.com']))).toBe(true);
    expect(isTrustedRedirectUrl('https://a.example.com/cb', prod(['https://*.example.com']))).toBe(true);
  });

  it('outside production mode a localhost URL still needs allow_localhost or a trusted domain', () => {
    expect(isTrustedRedirectUrl('http://2130706433/cb', policy([], false))).toBe(false);
    expect(isTrustedRedirectUrl('http://2130706433/cb', policy([], true))).toBe(true);
  });
});

describe('trustedDomainReach (what production mode reports)', () => {
  it.each([
    ['http://localhost:3000', { localhost: true, ipAddress: false }],
    ['http://2130706433', { localhost: true, ipAddress: true }],
    ['https://0x7f000001', { localhost: true, ipAddress: true }],
    ['https://0177.0.0.1', { localhost: true, ipAddress: true }],
    ['https://[::1]', { localhost: true, ipAddress: true }],
    ['https://*.localhost', { localhost: true, ipAddress: false }],
    ['https://localhos*', { localhost: true, ipAddress: false }],
    ['https://**', { localhost: true, ipAddress: true }],
    ['https://127.*.*.*', { localhost: true, ipAddress: true }],
    ['https://10.0.0.*', { localhost: false, ipAddress: true }],
    ['https://167772161', { localhost: false, ipAddress: true }],
    ['https://*.example.com', { localhost: false, ipAddress: false }],
    ['https://**.example.com', { localhost: false, ipAddress: false }],
    ['https://app.example.com', { localhost: false, ipAddress: false }],
  ])('%s', (domain, reach) => {
    expect(trustedDomainReach(domain)).toEqual(reach);
  });

  it('is null for a domain that is not valid', () => {
    expect(trustedDomainReach('https://***.example.com')).toBeNull();
    expect(trustedDomainReach('ftp://example.com')).toBeNull();
  });
});
