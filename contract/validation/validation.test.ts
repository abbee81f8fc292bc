import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EMAIL_MAX_LENGTH,
  MAX_DATE_MILLIS,
  MAX_INPUT_DEPTH,
  branchSchema,
  findInputProblem,
  millisSchema,
  emailSchema,
  identifierSchema,
  imageUrlSchema,
  isHttpUrl,
  isValidEmail,
  portSchema,
  urlSchema,
  userIdOrMeSchema,
  uuidSchema,
} from './schemas.js';
import { isIpAddress, isLocalhost, isValidHostname, validateTrustedDomain } from './urls.js';

describe('isValidEmail (spec section 5)', () => {
  it.each([
    'a@b.co',
    'user@example.com',
    'first.last@example.com',
    'first.middle.last@sub.example.org',
    'user+tag@example.com',
    "o'hara@example.ie",
    'UPPER@EXAMPLE.COM',
    'under_score-dash@my-domain.travel',
    '1234@digits-in-domain1.io',
    'x@a.b.c.d.example.museum',
    '!#$%&*+/=?^_`{|}~-@example.com',
  ])('accepts %s', (email) => {
    expect(isValidEmail(email)).toBe(true);
    expect(emailSchema.safeParse(email).success).toBe(true);
  });

  it.each([
    ['a leading dot in the local part', '.user@example.com'],
    ['a trailing dot in the local part', 'user.@example.com'],
    ['consecutive dots in the local part', 'first..last@example.com'],
    ['only a dot as local part', '.@example.com'],
    ['no TLD', 'user@localhost'],
    ['a 1-letter TLD', 'user@example.c'],
    ['a numeric TLD', 'user@example.123'],
    ['an alphanumeric TLD', 'user@example.c0m'],
    ['an IP literal domain', 'user@127.0.0.1'],
    ['no @', 'user.example.com'],
    ['two @', 'user@host@example.com'],
    ['an empty local part', '@example.com'],
    ['an empty domain', 'user@'],
    ['a domain starting with a dot', 'user@.example.com'],
    ['a domain ending with a dot', 'user@example.com.'],
    ['consecutive dots in the domain', 'user@example..com'],
    ['a label starting with a hyphen', 'user@-example.com'],
    ['a label ending with a hyphen', 'user@example-.com'],
    ['a space', 'us er@example.com'],
    ['a leading space', ' user@example.com'],
    ['a trailing newline', 'user@example.com\n'],
    ['angle brackets', '<user@example.com>'],
    ['a display name', 'User <user@example.com>'],
    ['a quoted local part', '"user"@example.com'],
    ['an empty string', ''],
    ['a bare @', '@'],
    ['a non-ASCII domain', 'user@exämple.com'],
  ])('refuses %s (%s)', (_why, email) => {
    expect(isValidEmail(email)).toBe(false);
    expect(emailSchema.safeParse(email).success).toBe(false);
  });

  it('allows at most 256 characters', () => {
    expect(EMAIL_MAX_LENGTH).toBe(256);
    const domain = '@example.com';
    const atLimit = `${'a'.repeat(256 - domain.length)}${domain}`;
    expect(atLimit).toHaveLength(256);
    expect(isValidEmail(atLimit)).toBe(true);
    expect(isValidEmail(`a${atLimit}`)).toBe(false);
    expect(emailSchema.safeParse(`a${atLimit}`).success).toBe(false);
    expect(isValidEmail(`${'a'.repeat(10_000)}${domain}`)).toBe(false);
  });

  it('does not take super-linear time on hostile input', () => {
    const start = performance.now();
    for (let i = 0; i < 200; i++) isValidEmail(`${'a.'.repeat(120)}@${'a-'.repeat(60)}!`);
    expect(performance.now() - start).toBeLessThan(500);
  });

  it("says 'must be a valid email' in the schema error", () => {
    const result = emailSchema.safeParse('nope');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('must be a valid email');
  });
});

describe('validateTrustedDomain (spec section 5, URLs)', () => {
  it.each([
    'https://example.com',
    'http://example.com',
    'https://example.com/',
    'https://example.com:8443',
    'https://app.example.com/path?x=1#y',
    'http://localhost:3000',
    'http://127.0.0.1:8080',
    'https://*.example.com',
    'https://*.example.com:8443',
    'https://app-*.example.com',
    'https://*.*.example.com',
    'HTTPS://EXAMPLE.COM',
  ])('accepts %s', (domain) => {
    expect(validateTrustedDomain(domain)).toBeNull();
  });

  it.each([
    ['ftp://example.com', /http or https/],
    ['ws://example.com', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['example.com', /http or https/],
    ['//example.com', /http or https/],
    ['https:/example.com', /http or https/],
    ['', /http or https/],
  ])('refuses %s: only http and https', (domain, message) => {
    expect(validateTrustedDomain(domain)).toMatch(message);
  });

  it.each([
    'https://exa mple.com',
    'https://example.com/a b',
    ' https://example.com',
    'https://example.com ',
    'https://example.com\t',
    'https://example.com\n',
  ])('refuses %j: no spaces', (domain) => {
    expect(validateTrustedDomain(domain)).toMatch(/spaces/);
  });

  it.each([
    ['the path', 'https://example.com/*'],
    ['the path (middle)', 'https://example.com/a/*/b'],
    ['the query', 'https://example.com/?next=*'],
    ['the hash', 'https://example.com/#*'],
    ['the query without a path', 'https://example.com?x=*'],
  ])('refuses a wildcard in %s', (_where, domain) => {
    expect(validateTrustedDomain(domain)).toMatch(/wildcards in the hostname/);
  });

  it.each([
    'https://user:password@example.com',
    'https://user@example.com',
    'https://*@example.com',
    'https://user:*@example.com',
    'https://u:p@*.example.com',
  ])('refuses %s: no user or password (with or without wildcards)', (domain) => {
    expect(validateTrustedDomain(domain)).toMatch(/user or password/);
  });

  it.each(['https://.*.example.com', 'https://*.example.com.', 'https://*..example.com', 'https://*.example..com', 'https://.*', 'https://*.'])(
    'refuses the wildcard hostname of %s (starts or ends with a dot, or has two dots)',
    (domain) => {
      expect(validateTrustedDomain(domain)).toMatch(/invalid wildcard hostname/);
    },
  );

  it.each(['https://*_.example.com', 'https://*.exa$mple.com', 'https://*.ex%41mple.com'])('refuses odd characters in a wildcard hostname: %s', (domain) => {
    expect(validateTrustedDomain(domain)).toMatch(/invalid wildcard hostname/);
  });

  it.each(['https://', 'http://[::1', 'https://exa%mple.com'])('refuses %s: not a valid URL', (domain) => {
    expect(validateTrustedDomain(domain)).not.toBeNull();
  });
});

describe('isLocalhost (spec section 5)', () => {
  it.each(['localhost', 'LOCALHOST', 'foo.localhost', 'a.b.localhost', '127.0.0.1', '127.255.1.2', '127.0.0.255', '[::1]', '::1'])(
    '%s is localhost',
    (host) => {
      expect(isLocalhost(host)).toBe(true);
    },
  );

  // Every spelling the URL parser (and so a browser) sends to 127.x.x.x, ::1 or a .localhost name:
  // otherwise `http://2130706433/` would pass as "not localhost" where the localhost rule applies.
  it.each([
    '127.0.0',
    '127.1',
    '2130706433',
    '0x7f000001',
    '0x7F.0.0.1',
    '0177.0.0.1',
    '017700000001',
    'localhost.',
    'app.localhost.',
    '[::ffff:127.0.0.1]',
    '::ffff:127.0.0.1',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:0:0:1]',
    '0:0::1',
    'local%68ost',
    'LocalHost',
  ])('%s is localhost too', (host) => {
    expect(isLocalhost(host)).toBe(true);
  });

  it.each([
    '128.0.0.1',
    '126.0.0.1',
    '10.0.0.1',
    '0.0.0.0',
    'localhost.com',
    'mylocalhost',
    'localhostx',
    'localhost.example.com',
    'example.com',
    '1127.0.0.1',
    '127.0.0.1.5',
    '128.1',
    '0x80000001',
    '[::ffff:10.0.0.1]',
    '[::2]',
    'localhost..',
    'localhost:3000',
    'localhost/x',
    'evil.test@localhost',
    '127.0.0.1.example.com',
    '',
  ])('%s is not localhost', (host) => {
    expect(isLocalhost(host)).toBe(false);
  });
});

describe('isIpAddress', () => {
  it('recognises IPv4 and IPv6 literals only', () => {
    for (const ip of ['10.0.0.1', '192.168.1.1', '8.8.8.8', '[2001:db8::1]', '::1']) expect(isIpAddress(ip)).toBe(true);
    for (const host of ['example.com', 'localhost', 'a.b.c.d', '1.2.3.4.example.com', '']) expect(isIpAddress(host)).toBe(false);
  });

  it('recognises the short, numeric and hex IPv4 spellings the URL parser accepts', () => {
    for (const ip of ['10.0.0', '10.1', '167772161', '0xa000001', '012.0.0.1', '[::ffff:10.0.0.1]']) expect(isIpAddress(ip)).toBe(true);
  });
});

describe('isValidHostname (spec section 5)', () => {
  it.each(['localhost', 'example.com', 'a.b.co', 'sub.domain.example.org', 'EXAMPLE.COM', 'xn--bcher-kva.example', 'my-app.example.io', '1.example.com'])(
    '%s is valid',
    (host) => {
      expect(isValidHostname(host)).toBe(true);
    },
  );

  it.each([
    'example',
    'example.c',
    'example.123',
    'example.c0m',
    '127.0.0.1',
    '-a.com',
    'a-.com',
    'a..com',
    '.example.com',
    'example.com.',
    'exa mple.com',
    'exa_mple.com',
    '',
    'foo.localhost.',
    `${'a'.repeat(64)}.com`,
  ])('%s is not valid', (host) => {
    expect(isValidHostname(host)).toBe(false);
  });
});

describe('uuidSchema (version 4 only)', () => {
  it('accepts v4 UUIDs in either case', () => {
    for (let i = 0; i < 100; i++) {
      const id = randomUUID();
      expect(uuidSchema.safeParse(id).success).toBe(true);
      expect(uuidSchema.safeParse(id.toUpperCase()).success).toBe(true);
    }
  });

  it.each([
    ['v1', 'c232ab00-9414-11ec-b3c8-9f6bdeced846'],
    ['v3', 'a3bb189e-8bf9-3888-9912-ace4e6543002'],
    ['v5', '886313e1-3b8a-5372-9b90-0c9aee199e5d'],
    ['v7', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'],
    ['nil', '00000000-0000-0000-0000-000000000000'],
    ['max', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    ['wrong variant', '7d444840-9dc0-41dd-c5a5-1c1b2f6b0ad2'],
    ['no dashes', '7d4448409dc041dd85a51c1b2f6b0ad2'],
    ['braces', '{7d444840-9dc0-41dd-85a5-1c1b2f6b0ad2}'],
    ['urn', 'urn:uuid:7d444840-9dc0-41dd-85a5-1c1b2f6b0ad2'],
    ['too short', '7d444840-9dc0-41dd-85a5-1c1b2f6b0ad'],
    ['trailing text', '7d444840-9dc0-41dd-85a5-1c1b2f6b0ad2x'],
    ['trailing newline', '7d444840-9dc0-41dd-85a5-1c1b2f6b0ad2\n'],
    ['non-hex', '7d444840-9dc0-41dd-85a5-1c1b2f6b0adg'],
    ['empty', ''],
    ['me', 'me'],
  ])('refuses %s', (_why, value) => {
    expect(uuidSchema.safeParse(value).success).toBe(false);
  });

  it('userIdOrMeSchema takes me or a v4 UUID, nothing else', () => {
    expect(userIdOrMeSchema.safeParse('me').success).toBe(true);
    expect(userIdOrMeSchema.safeParse(randomUUID()).success).toBe(true);
    for (const value of ['ME', 'Me', 'self', '', 'c232ab00-9414-11ec-b3c8-9f6bdeced846']) expect(userIdOrMeSchema.safeParse(value).success).toBe(false);
  });
});

describe('other wire schemas (spec sections 5 and 9)', () => {
  it('identifiers: letters, digits, _ and -, max 63, no leading hyphen', () => {
    for (const ok of ['a', 'abc_123', 'A-b-C', '_x', '0', 'a'.repeat(63)]) expect(identifierSchema.safeParse(ok).success).toBe(true);
    for (const bad of ['', '-a', 'a b', 'a.b', 'a/b', 'é', 'a'.repeat(64)]) expect(identifierSchema.safeParse(bad).success).toBe(false);
  });

  it('branch: non-empty, max 255', () => {
    expect(branchSchema.safeParse('main').success).toBe(true);
    expect(branchSchema.safeParse('b'.repeat(255)).success).toBe(true);
    expect(branchSchema.safeParse('').success).toBe(false);
    expect(branchSchema.safeParse('b'.repeat(256)).success).toBe(false);
  });

  it('port: integers 0 to 65535', () => {
    for (const ok of [0, 1, 587, 65535]) expect(portSchema.safeParse(ok).success).toBe(true);
    for (const bad of [-1, 65536, 1.5, Number.NaN, '25']) expect(portSchema.safeParse(bad).success).toBe(false);
  });

  it('URLs: http(s) only, no spaces', () => {
    for (const ok of ['https://example.com/cb', 'http://localhost:3000/x?y=1']) {
      expect(isHttpUrl(ok)).toBe(true);
      expect(urlSchema.safeParse(ok).success).toBe(true);
    }
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'ftp://example.com', '/relative', 'https://exa mple.com', 'https://example.com/ x', '']) {
      expect(isHttpUrl(bad)).toBe(false);
      expect(urlSchema.safeParse(bad).success).toBe(false);
    }
  });

  it('image URLs: http(s) of at most 8192 characters, or a base64 image data URL under 100KB decoded', () => {
    expect(imageUrlSchema.safeParse('https://example.com/a.png').success).toBe(true);
    expect(imageUrlSchema.safeParse('data:image/png;base64,iVBORw0KGgo=').success).toBe(true);
    expect(imageUrlSchema.safeParse('data:text/html;base64,PHNjcmlwdD4=').success).toBe(false);
    expect(imageUrlSchema.safeParse('javascript:alert(1)').success).toBe(false);
    const prefix = 'data:image/png;base64,';
    const image = (bytes: number) => `${prefix}${Buffer.alloc(bytes, 255).toString('base64')}`;
    for (const bytes of [102_398, 102_399]) expect(imageUrlSchema.safeParse(image(bytes)).success, String(bytes)).toBe(true);
    for (const bytes of [102_400, 102_401, 700_000]) expect(imageUrlSchema.safeParse(image(bytes)).success, String(bytes)).toBe(false);
    expect(imageUrlSchema.safeParse(`${prefix}${'A'.repeat(1_000_000 - prefix.length)}`).success).toBe(false);
    expect(imageUrlSchema.safeParse(`https://example.com/${'a'.repeat(8192 - 20)}`).success).toBe(true);
    expect(imageUrlSchema.safeParse(`https://example.com/${'a'.repeat(8193 - 20)}`).success).toBe(false);
  });
});

describe('findInputProblem (what no input may contain)', () => {
  it('accepts ordinary input of any shape', () => {
    for (const input of [
      undefined,
      null,
      0,
      true,
      '',
      'text',
      'emoji 🔑 and accents é',
      [],
      {},
      { a: [1, { b: 'c' }], d: null },
      { 'key with spaces': 'ok' },
    ]) {
      expect(findInputProblem(input)).toBeNull();
    }
  });

  it('finds a NUL character in a value or a key, with its path', () => {
    expect(findInputProblem('a\u0000')).toEqual({ path: 'body', message: 'must not contain the NUL character' });
    expect(findInputProblem({ display_name: 'a\u0000b' })).toEqual({ path: 'display_name', message: 'must not contain the NUL character' });
    expect(findInputProblem({ meta: { list: ['ok', 'x\u0000'] } })).toEqual({ path: 'meta.list.1', message: 'must not contain the NUL character' });
    expect(findInputProblem({ meta: { 'k\u0000': 1 } })).toEqual({ path: 'meta.k\u0000', message: 'must not contain the NUL character' });
  });

  it('finds unpaired surrogates, and accepts proper pairs', () => {
    expect(findInputProblem({ a: 'x\ud800' })?.path).toBe('a');
    expect(findInputProblem({ a: '\udc00x' })?.path).toBe('a');
    expect(findInputProblem({ a: '\udc00\ud800' })?.path).toBe('a');
    expect(findInputProblem({ a: '\ud83d\udd11' })).toBeNull();
  });

  it('can check the nesting only', () => {
    expect(findInputProblem({ a: 'x\u0000' }, { checkStrings: false })).toBeNull();
    expect(findInputProblem([[['x']]], { maxDepth: 2, checkStrings: false })?.message).toMatch(/nested too deeply/);
  });

  it(`allows ${MAX_INPUT_DEPTH} levels of nesting and refuses more`, () => {
    const nested = (levels: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    expect(findInputProblem(nested(MAX_INPUT_DEPTH))).toBeNull();
    expect(findInputProblem(nested(MAX_INPUT_DEPTH + 1))?.message).toMatch(/nested too deeply/);
    // Far deeper than the stack could recurse: still an answer, not a RangeError.
    expect(findInputProblem(JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`))?.message).toMatch(/nested too deeply/);
  });
});

describe('millisSchema', () => {
  it('takes integer milliseconds from 0 to the end of the year 9999 (a later Date is not a timestamp PostgreSQL reads)', () => {
    for (const ok of [0, Date.now(), MAX_DATE_MILLIS]) expect(millisSchema.safeParse(ok).success).toBe(true);
    for (const bad of [-1, 1.5, MAX_DATE_MILLIS + 1, 8.64e15, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY])
      expect(millisSchema.safeParse(bad).success).toBe(false);
    expect(new Date(MAX_DATE_MILLIS).toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });
});
