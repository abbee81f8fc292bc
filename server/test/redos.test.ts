import { describe, expect, it } from 'vitest';
import { isRelativeUrl, parseHandlerRoute, readReturnTo } from '../../react-ui/urls.js';
import { validateEmail } from '../../react-ui/validation.js';
import { isSupportedPasswordHash } from '../crypto/passwords.js';
import { parseApiKey } from '../crypto/api-key-format.js';
import { peekKid } from '../crypto/jwt.js';
import { customPermissionIdSchema, permissionIdSchema } from '../../contract/schemas/permissions.js';
import { DEFAULT_PROJECT_CONFIG } from '../../contract/config/project-config.js';
import { domainSchema } from '../../contract/config/domains.js';
import { productionModeProblems } from '../domains/projects/service.js';
import { ipKey } from '../domains/rate-limits/service.js';
import { clientUserUpdateSchema, serverUserUpdateSchema } from '../../contract/schemas/users.js';
import { BASIC_AUTHORIZATION } from '../http/oauth-token.js';
import { PLAIN_PATH, QUERY_NUMBER } from '../trpc/rest.js';
import { isValidEmail } from '../../contract/validation/email.js';
import { emailSchema, findInputProblem, identifierSchema, imageUrlSchema, isHttpUrl, urlSchema, uuidSchema } from '../../contract/validation/schemas.js';
import { isIpAddress, isLocalhost, isTrustedRedirectUrl, isValidHostname, parseTrustedDomain, validateTrustedDomain } from '../../contract/validation/urls.js';

/**
 * Issue 13 item 2: no catastrophic regex. Every check that runs a regular expression (or a
 * matcher) on user or owner input gets 10 KB adversarial inputs of several shapes — long runs of
 * one character, near misses that fail only at the very end, stacked wildcards, dots, at signs,
 * escapes — and must answer each within 50 ms. A backtracking pattern takes seconds to years on
 * these; a linear one takes well under a millisecond.
 *
 * Audited and covered below: email (server, schema and UI kit), URLs and image data URLs,
 * trusted domains (validation, parsing, matching on both sides, production-mode problems),
 * localhost / IP / hostname rules, UUIDs, identifiers, permission ids, base64 TOTP secrets,
 * metadata (NUL and unpaired surrogates, keys and values), rate-limit IP keys, API keys, password
 * hashes, JWT headers, the UI kit's redirect checks, the REST path dispatcher (PLAIN_PATH), query
 * number coercion and the OAuth `Authorization: Basic` parser.
 * Read and judged linear without a test (anchored, one fixed-size or single-class repetition):
 * json-body's `^\d{1,5}$` on Content-Length, http/console-app.ts's `^/(api|health|metrics)(/|$)`, the email
 * renderer's `[\r\n]+` and the SMTP error's `\s+` (one class, replaced globally), the templates'
 * `^https?://`, the user search's LIKE escape and exact-UUID check, parseTemplate's `^\{(\w+)\}$`
 * (route templates from code). Not on input: env.ts (the operator's variables), test helpers, the
 * console build. The SDK's `baseUrl.replace(/\/+$/, '')` takes the developer's own option.
 */

const LIMIT_MS = 50;
const N = 10_000;

/** 10 KB cores: runs of one character, near misses, and the shapes each check splits on. */
const CORES: Record<string, string> = {
  'a×N': 'a'.repeat(N),
  'a×N!': `${'a'.repeat(N)}!`,
  '*×N': '*'.repeat(N),
  '*.×N/2': '*.'.repeat(N / 2),
  '**.×N/3': '**.'.repeat(N / 3),
  'a*×N/2': 'a*'.repeat(N / 2),
  '.×N': '.'.repeat(N),
  'a.×N/2': 'a.'.repeat(N / 2),
  '@×N': '@'.repeat(N),
  'a@×N/2': 'a@'.repeat(N / 2),
  '-×N': '-'.repeat(N),
  'a-×N/2!': `${'a-'.repeat(N / 2)}!`,
  '1.×N/2': '1.'.repeat(N / 2),
  '0×N': '0'.repeat(N),
  ':×N': ':'.repeat(N),
  ':1×N/2': ':1'.repeat(N / 2),
  'ffff:×N/5': 'ffff:'.repeat(N / 5),
  '%×N': '%'.repeat(N),
  '%×N\\nx': `${'%'.repeat(N)}\nx`,
  '%2e%2e%2f×': '%2e%2e%2f'.repeat(Math.floor(N / 9)),
  '%25×2e': `${'%25'.repeat(Math.floor(N / 3))}2e`,
  '/×Na': `${'/'.repeat(N)}a`,
  '/a×N/2!': `${'/a'.repeat(N / 2)}!`,
  '\\×N': '\\'.repeat(N),
  'space×Na': `${' '.repeat(N)}a`,
  'tab×N': '\t'.repeat(N),
  '$×N': '$'.repeat(N),
  '_:×N/2': '_:'.repeat(N / 2),
  '=×N': '='.repeat(N),
  'A=×N/2': 'A='.repeat(N / 2),
  '+/×N/2': '+/'.repeat(N / 2),
  'lone-high×N': '\ud800'.repeat(N),
  'a+lone-low×N/2': 'a\udc00'.repeat(N / 2),
  'pairs×N/2': '\ud83d\ude00'.repeat(N / 2),
};

/** How long one call takes, the best of three when the first is slow (a busy machine is not a catastrophe; a backtracking regex is slow every time). */
function millis(run: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3; attempt++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
    if (best < LIMIT_MS || best > 10 * LIMIT_MS) break;
  }
  return best;
}

/** Every core in every wrapping the check sees in practice; the slow ones, with their times. */
function slowInputs(check: (input: string) => unknown, wraps: ((core: string) => string)[] = [(core) => core]): string[] {
  const slow: string[] = [];
  for (const [name, core] of Object.entries(CORES)) {
    for (const [w, wrap] of wraps.entries()) {
      const input = wrap(core);
      const ms = millis(() => check(input));
      if (ms >= LIMIT_MS) slow.push(`${name} (wrapping ${w}): ${ms.toFixed(1)} ms`);
    }
  }
  return slow;
}

const asEmail = [(c: string) => c, (c: string) => `${c}@example.com`, (c: string) => `a@${c}`, (c: string) => `a@${c}.com`, (c: string) => `${c}@${c}`];
const asUrl = [
  (c: string) => c,
  (c: string) => `https://${c}`,
  (c: string) => `https://${c}.example.com/`,
  (c: string) => `https://app.example.com/${c}`,
  (c: string) => `https://app.example.com/auth/${c}`,
  (c: string) => `https://app.example.com/?q=${c}`,
];
const asDomain = [
  (c: string) => `https://${c}`,
  (c: string) => `https://${c}.x.com`,
  (c: string) => `https://x.${c}.com`,
  (c: string) => `https://*.${c}`,
  (c: string) => `https://x.com:${c}`,
  (c: string) => `https://x.com/${c}`,
  (c: string) => c,
];
const asHost = [(c: string) => c, (c: string) => `${c}.localhost`, (c: string) => `127.${c}`, (c: string) => `[${c}]`, (c: string) => `${c}.com`];

const TRUSTED = [
  'https://app.example.com/auth/',
  'https://*.example.com',
  'https://**.example.org',
  'https://app-*.example.net',
  'https://*.*.example.io',
  'http://localhost:3000',
].map((domain) => ({ domain }));

describe('no check on user or owner input backtracks (10 KB adversarial inputs, < 50 ms each)', () => {
  it('emails: the server rule, its schema and the UI kit', () => {
    expect(slowInputs(isValidEmail, asEmail)).toEqual([]);
    expect(slowInputs((s) => emailSchema.safeParse(s), asEmail)).toEqual([]);
    expect(slowInputs(validateEmail, asEmail)).toEqual([]);
  });

  it('URLs, image URLs and image data URLs', () => {
    expect(slowInputs(isHttpUrl, asUrl)).toEqual([]);
    expect(slowInputs((s) => urlSchema.safeParse(s), asUrl)).toEqual([]);
    const asImage = [
      ...asUrl,
      (c: string) => `data:image/png;base64,${c}`,
      (c: string) => `data:image/${c};base64,AAAA`,
      (c: string) => `data:image/png;base64,${'A'.repeat(N)}${c}`,
    ];
    expect(slowInputs((s) => imageUrlSchema.safeParse(s), asImage)).toEqual([]);
  });

  it('trusted domains: validation, parsing, the config schema and production-mode problems', () => {
    expect(slowInputs(validateTrustedDomain, asDomain)).toEqual([]);
    expect(slowInputs(parseTrustedDomain, asDomain)).toEqual([]);
    expect(slowInputs((s) => domainSchema.safeParse({ domain: s, handler_path: `/${s}` }), asDomain)).toEqual([]);
    expect(slowInputs((s) => productionModeProblems('p', { ...DEFAULT_PROJECT_CONFIG, domains: [{ domain: s, handler_path: '/handler' }] }), asDomain)).toEqual(
      [],
    );
  });

  it('callback URLs against trusted domains (the URL side, on every unauthenticated request with a callback)', () => {
    for (const productionMode of [false, true]) {
      expect(slowInputs((s) => isTrustedRedirectUrl(s, { domains: TRUSTED, allowLocalhost: true, productionMode }), asUrl)).toEqual([]);
    }
  });

  it('trusted domains against a callback URL (the owner side: stacked wildcards, however stored)', () => {
    const urls = ['https://ab.example.com/cb', 'https://app.x.com/cb', 'http://localhost:3000/cb'];
    expect(slowInputs((s) => urls.map((url) => isTrustedRedirectUrl(url, { domains: [{ domain: s }], allowLocalhost: false })), asDomain)).toEqual([]);
  }, 60_000);

  it('localhost, IP address and hostname rules', () => {
    expect(slowInputs(isLocalhost, asHost)).toEqual([]);
    expect(slowInputs(isIpAddress, asHost)).toEqual([]);
    expect(slowInputs(isValidHostname, asHost)).toEqual([]);
  });

  it('UUIDs, identifiers, permission ids and base64 TOTP secrets', () => {
    expect(slowInputs((s) => uuidSchema.safeParse(s))).toEqual([]);
    expect(slowInputs((s) => identifierSchema.safeParse(s))).toEqual([]);
    expect(slowInputs((s) => permissionIdSchema.safeParse(s), [(c) => c, (c) => `$${c}`])).toEqual([]);
    expect(slowInputs((s) => customPermissionIdSchema('team').safeParse(s), [(c) => c, (c) => `$${c}`])).toEqual([]);
    expect(slowInputs((s) => clientUserUpdateSchema.safeParse({ totp_secret_base64: s }), [(c) => c, (c) => `${'A'.repeat(1000)}${c.slice(0, 20)}`])).toEqual(
      [],
    );
  });

  it('metadata and every input string (NUL, unpaired surrogates, in keys and values)', () => {
    expect(slowInputs((s) => findInputProblem({ [s]: s, nested: { list: [s, { [s]: s }] } }))).toEqual([]);
    expect(slowInputs((s) => serverUserUpdateSchema.safeParse({ display_name: s.slice(0, 256), server_metadata: { [s]: s } }))).toEqual([]);
  });

  it('rate-limit IP keys, API keys, password hashes and JWT headers', () => {
    const asIp = [(c: string) => c, (c: string) => `::ffff:${c}`, (c: string) => `${c}%eth0`, (c: string) => `fe80::1%${c}`, (c: string) => ` ${c} `];
    expect(slowInputs(ipKey, asIp)).toEqual([]);
    expect(slowInputs(parseApiKey, [(c) => c, (c) => `latch_usk_${c}`])).toEqual([]);
    expect(slowInputs(isSupportedPasswordHash, [(c) => c, (c) => `$2b$10$${c}`, (c) => `$argon2id$${c}`])).toEqual([]);
    expect(slowInputs(peekKid, [(c) => c, (c) => `${c}.${c}.${c}`])).toEqual([]);
  });

  it("the UI kit's redirect and route checks", () => {
    expect(slowInputs(isRelativeUrl, [...asUrl, (c) => `/${c}`, (c) => ` ${c}:`])).toEqual([]);
    expect(slowInputs((s) => parseHandlerRoute(s), [(c) => `/handler/${c}`, (c) => `/handler${c}`, (c) => `/handler/x${c}`])).toEqual([]);
    expect(slowInputs((s) => readReturnTo(`?${new URLSearchParams({ after_auth_return_to: s })}`))).toEqual([]);
  });
});

describe('the stacked-wildcard freeze (issue 13 item 2: one request froze every tenant for 14.6 s)', () => {
  const stacked = `https://${'*'.repeat(20)}.x.com`;

  it('a stored pattern with stacked wildcards is matched in linear time', () => {
    // Stored before validation refused it: the matcher must not blow up on it either.
    const ms = millis(() => isTrustedRedirectUrl(`https://${'a'.repeat(30)}.y.com/cb`, { domains: [{ domain: stacked }], allowLocalhost: false }));
    expect(ms).toBeLessThan(LIMIT_MS);
  }, 60_000);

  it('validation refuses stacked wildcards', () => {
    expect(validateTrustedDomain(stacked)).toMatch(/adjacent wildcards/);
    expect(domainSchema.safeParse({ domain: stacked, handler_path: '/handler' }).success).toBe(false);
  });
});

describe('request parsing: the REST path, query numbers and the OAuth Basic header', () => {
  it('the REST dispatcher and OAuth token route regexes', () => {
    expect(slowInputs((s) => PLAIN_PATH.test(s), [(c) => `/${c}`, (c) => `/api/v1/${c}`, (c) => `${'/a'.repeat(N / 2)}${c}`])).toEqual([]);
    expect(slowInputs((s) => QUERY_NUMBER.test(s), [(c) => c, (c) => `-${'1'.repeat(N)}.${c}`, (c) => `${'1'.repeat(N)}${c}`])).toEqual([]);
    expect(slowInputs((s) => BASIC_AUTHORIZATION.exec(s), [(c) => `Basic ${c}`, (c) => `basic ${'A'.repeat(N)}${c}`])).toEqual([]);
  });
});
