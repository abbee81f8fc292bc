/**
 * Trusted-domain and localhost rules of spec section 5, and the redirect-URL matcher built on them
 * (isTrustedRedirectUrl). Pure functions, no Node-only APIs: the SDK may share them.
 *
 * No regular expression here is built from input, and every fixed one is anchored with no
 * ambiguous repetition: these run on every unauthenticated request that carries a callback URL,
 * with patterns an owner (anyone who signs up) wrote, so a backtracking pattern would let one
 * request freeze every tenant. Wildcard hosts are matched label by label (matchHostPattern).
 */

/** The longest DNS name (RFC 1035), and the longest label in it. */
const MAX_HOSTNAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

/**
 * A hostname as the URL parser spells it: lower case, IDN in punycode, and every IPv4 spelling
 * (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) as a dotted quad, IPv6 compressed and in
 * brackets (`[::ffff:7f00:1]`). null when it is not a bare host the parser accepts.
 */
function canonicalHost(hostname: string): string | null {
  if (hostname.length === 0 || hostname.length > 1024) return null;
  // Not a bare host: the parser would read a path, a query, credentials or a port out of these.
  for (const c of hostname) if ('/\\?#@ \t\r\n'.includes(c)) return null;
  const bracketed = hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
  try {
    return new URL(`http://${bracketed}/`).hostname;
  } catch {
    return null;
  }
}

function isDottedQuad(host: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Localhost (spec section 5): localhost, *.localhost, or 127.x.x.x, in any spelling a browser
 * would send to the same place: numeric and hex IPv4 forms (`2130706433`, `0x7f.1`, `127.1`),
 * a trailing dot (`localhost.`), and IPv6 `::1` or an IPv4-mapped 127.x (`::ffff:127.0.0.1`).
 * Tricks that are not localhost stay not localhost (`localhost.evil.test`, `mylocalhost`).
 *
 * @example isLocalhost('0x7f000001') // true
 * @example isLocalhost('localhost.evil.test') // false
 */
export function isLocalhost(hostname: string): boolean {
  const host = canonicalHost(hostname.toLowerCase());
  if (host === null) return false;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isDottedQuad(name)) return name.startsWith('127.');
  // The parser writes ::ffff:127.a.b.c as [::ffff:7fXX:YYYY].
  return host === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}

/** An IPv4 address in any spelling the URL parser accepts (see isLocalhost), or an IPv6 address. */
export function isIpAddress(hostname: string): boolean {
  const host = canonicalHost(hostname.toLowerCase());
  if (host === null) return false;
  return isDottedQuad(host) || host.startsWith('[');
}

/** localhost, or a dotted domain whose top level is at least two letters. */
export function isValidHostname(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  if (hostname.length > MAX_HOSTNAME_LENGTH) return false;
  const labels = hostname.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l))) return false;
  return /^[a-z]{2,}$/i.test(labels[labels.length - 1]!);
}

/**
 * A trusted domain: an http(s) URL, wildcards (`*`) allowed only in the hostname, and a wildcard
 * hostname may not start or end with a dot or contain two dots in a row. In a wildcard hostname `*`
 * stands for part of one label and `**`, written as a whole label, for a run of labels; wildcards
 * side by side otherwise (`***`, `a**`) are refused: they add nothing a single one does not, and
 * stacked wildcards are what made the old matcher backtrack for seconds.
 */
export function validateTrustedDomain(domain: string): string | null {
  if (/\s/.test(domain)) return 'must not contain spaces';
  const parts = splitDomain(domain);
  if (!parts) return 'must be an http or https URL';
  const { authority, hostname, rest } = parts;
  if (rest.includes('*')) return 'may only use wildcards in the hostname';
  if (authority.includes('@')) return 'must not contain a user or password';
  if (hostname.includes('*')) {
    if (hostname.startsWith('.') || hostname.endsWith('.') || hostname.includes('..')) return 'has an invalid wildcard hostname';
    if (!/^[a-z0-9*.-]+$/i.test(hostname)) return 'has an invalid wildcard hostname';
    if (hostname.split('.').some((label) => label.includes('**') && label !== '**')) {
      return 'must not have adjacent wildcards: * stands for part of one label, and ** only for a whole run of labels';
    }
    if (hostname.length > MAX_HOSTNAME_LENGTH || hostname.split('.').some((label) => label.length > MAX_LABEL_LENGTH)) return 'has too long a hostname';
    return wildcardBase(parts) ? null : 'must be a valid URL';
  }
  try {
    new URL(domain);
  } catch {
    return 'must be a valid URL';
  }
  return null;
}

interface DomainParts {
  scheme: string;
  /** Between `//` and the path: host, port and (refused) credentials. */
  authority: string;
  /** The authority without its port. */
  hostname: string;
  /** `:port` or ''. */
  port: string;
  /** Path, query and hash. */
  rest: string;
}

function splitDomain(domain: string): DomainParts | null {
  const match = /^(https?):\/\/([^/?#]*)(.*)$/is.exec(domain);
  if (!match) return null;
  const authority = match[2]!;
  // A port is the digits after the last colon (the old `/:\d+$/`, without a regex).
  const colon = authority.lastIndexOf(':');
  const digits = colon >= 0 ? authority.slice(colon + 1) : '';
  const hasPort = colon >= 0 && digits.length > 0 && /^\d+$/.test(digits);
  return {
    scheme: match[1]!.toLowerCase(),
    authority,
    hostname: hasPort ? authority.slice(0, colon) : authority,
    port: hasPort ? authority.slice(colon) : '',
    rest: match[3]!,
  };
}

// A host no trusted domain can name (.invalid is reserved, RFC 2606): the URL parser normalises
// the scheme, port and path of a wildcard domain around it, and the wildcard hostname is kept aside.
const WILDCARD_STAND_IN = 'latch-wildcard.invalid';

function wildcardBase(parts: DomainParts): URL | null {
  try {
    return new URL(`${parts.scheme}://${WILDCARD_STAND_IN}${parts.port}${parts.rest}`);
  } catch {
    return null;
  }
}

/** What decides where a link or redirect may point: the project's trusted domains and its localhost flag. */
export interface RedirectPolicy {
  domains: readonly { domain: string }[];
  allowLocalhost: boolean;
  /**
   * Production mode enforces its own problems (spec section 5): no localhost in any spelling
   * (whatever allow_localhost or a trusted domain says) and no direct IP address.
   */
  productionMode?: boolean;
}

interface TrustedDomainPattern {
  protocol: string;
  /**
   * The hostname's labels, lower case: `**` is a run of one or more labels, any other label is
   * literal except that each `*` in it stands for one or more characters.
   */
  labels: readonly string[];
  /** '' for the scheme's default port, as URL.port reports it. */
  port: string;
  /** '/' or a path prefix the URL must be inside of (whole segments). */
  path: string;
}

/** A trusted domain as a pattern, or null when it is not a valid trusted domain (it then matches nothing). */
export function parseTrustedDomain(domain: string): TrustedDomainPattern | null {
  if (validateTrustedDomain(domain) !== null) return null;
  const parts = splitDomain(domain);
  if (!parts) return null;
  if (parts.hostname.includes('*')) {
    const base = wildcardBase(parts);
    if (!base) return null;
    return { protocol: base.protocol, labels: parts.hostname.toLowerCase().split('.'), port: base.port, path: base.pathname };
  }
  let base: URL;
  try {
    base = new URL(domain);
  } catch {
    return null;
  }
  // A literal hostname matches only itself; `%2a` would come out of the parser as `*`, which is
  // not a hostname anyone owns, so such a domain matches nothing rather than everything.
  if (base.hostname.includes('*')) return null;
  return { protocol: base.protocol, labels: base.hostname.split('.'), port: base.port, path: base.pathname };
}

/**
 * Whether one label matches a label pattern in which each `*` stands for one or more characters:
 * the classic greedy glob walk that remembers only the last `*`, so O(pattern × label) at worst
 * with no backtracking blow-up (both are at most 63 characters in a valid pattern and host).
 */
function matchLabel(pattern: string, label: string): boolean {
  if (!pattern.includes('*')) return pattern === label;
  let p = 0;
  let l = 0;
  let starP = -1;
  let starL = 0;
  while (l < label.length) {
    if (p < pattern.length && pattern[p] === '*') {
      // `*` takes at least one character: consume it now, remember where to give it more.
      starP = p;
      starL = l + 1;
      p += 1;
      l += 1;
    } else if (p < pattern.length && pattern[p] === label[l]) {
      p += 1;
      l += 1;
    } else if (starP >= 0) {
      // Give the last `*` one more character and retry what follows it.
      starL += 1;
      p = starP + 1;
      l = starL;
    } else {
      return false;
    }
  }
  return p === pattern.length;
}

/**
 * Whether a hostname matches a pattern's labels, label by label: a table over (pattern label,
 * host label) filled once, so the work is bounded by the product of the two lengths, never
 * exponential, however many wildcards a (possibly stored, pre-validation) pattern stacks.
 */
export function matchHostPattern(patternLabels: readonly string[], hostname: string): boolean {
  if (hostname.length === 0 || hostname.length > MAX_HOSTNAME_LENGTH + 1) return false;
  const labels = hostname.split('.');
  // reach[j]: the pattern labels seen so far match exactly the first j host labels.
  let reach: boolean[] = labels.map(() => false).concat(false);
  reach[0] = true;
  for (const pattern of patternLabels) {
    const next: boolean[] = reach.map(() => false);
    if (pattern === '**') {
      // One or more labels: reachable at j when some k < j was.
      let seen = false;
      for (let j = 0; j <= labels.length; j++) {
        if (seen) next[j] = true;
        if (reach[j]) seen = true;
      }
    } else {
      for (let j = 1; j <= labels.length; j++) next[j] = reach[j - 1]! && labels[j - 1]!.length <= MAX_LABEL_LENGTH && matchLabel(pattern, labels[j - 1]!);
    }
    reach = next;
    if (!reach.includes(true)) return false;
  }
  return reach[labels.length]!;
}

// Only the escapes that can spell a way up: `.`, `/`, `\`, `;`, and `%` itself (double encoding).
// Any other escape decodes to a byte that cannot, so decoding it would only cost time.
const PATH_ESCAPES: Record<string, string> = { '2e': '.', '2f': '/', '5c': '\\', '3b': ';', '25': '%' };

function decodePathEscapes(text: string): string {
  return text.replace(/%(2e|2f|5c|3b|25)/gi, (_, hex: string) => PATH_ESCAPES[hex.toLowerCase()]!);
}

/** A `..` segment, with `/` or `\` as separators and a `;param` tail ignored (servers differ on both). */
function hasParentSegment(path: string): boolean {
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path[i] === '/' || path[i] === '\\') {
      const segment = path.slice(start, i);
      const semicolon = segment.indexOf(';');
      if ((semicolon >= 0 ? segment.slice(0, semicolon) : segment) === '..') return true;
      start = i + 1;
    }
  }
  return false;
}

// Decoding rounds looked through (`%252e` is `%2e` once decoded, `.` twice). A path still encoded
// after that many is refused: no real callback URL needs it.
const DECODING_ROUNDS = 3;

/**
 * Whether a path hides a way out of a path prefix: `..%2f`, `%2e%2e%5c`, `..;/`, double encoding.
 * The URL parser resolves plain `../` and `%2e%2e/`, but not an encoded slash, so
 * `/auth/..%2fadmin` stays under `/auth/` for us and becomes `/admin` for a server or proxy that
 * decodes before routing.
 */
function hidesParentSegment(path: string): boolean {
  let current = path;
  for (let round = 0; round <= DECODING_ROUNDS; round++) {
    if (hasParentSegment(current)) return true;
    const decoded = decodePathEscapes(current);
    if (decoded === current) return false;
    current = decoded;
  }
  return true;
}

/** Whether `path` is `prefix` or below it, segment-wise (`/app` covers `/app/x`, not `/application`). */
function isWithinPath(path: string, prefix: string): boolean {
  if (prefix === '/') return true;
  const inside = path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
  return inside && !hidesParentSegment(path);
}

function matchesPattern(url: URL, pattern: TrustedDomainPattern): boolean {
  return (
    url.protocol === pattern.protocol && url.port === pattern.port && matchHostPattern(pattern.labels, url.hostname) && isWithinPath(url.pathname, pattern.path)
  );
}

/**
 * Whether a parsed http(s) URL falls under one trusted domain: same scheme, same port (the default
 * one unless the domain names another), a hostname matching the domain's (where `*` stands for
 * one or more characters inside a label and a whole `**` label for any run of labels), and a path
 * inside the domain's path (no encoded `..` that a server could decode out of it). A domain that
 * is not valid (see validateTrustedDomain) matches nothing.
 *
 * @example
 * matchesTrustedDomain(new URL('https://a.example.com/cb'), 'https://*.example.com') // true
 * matchesTrustedDomain(new URL('https://a.b.example.com/cb'), 'https://*.example.com') // false
 */
export function matchesTrustedDomain(url: URL, domain: string): boolean {
  const pattern = parseTrustedDomain(domain);
  return pattern !== null && matchesPattern(url, pattern);
}

/**
 * Whether Latch may send a user to `url`: in an emailed link (verification, password reset, magic
 * link, invitations) or a redirect. Without this check anyone could make a project's own emails
 * carry a link to a phishing site, or have a code delivered to a page they control.
 *
 * Trusted: an absolute http(s) URL without spaces or credentials (`https://app.example.com@evil.test`
 * is a classic disguise) that matches one of the project's trusted domains, or whose host is
 * localhost (localhost, *.localhost, 127.x.x.x, [::1]) while allow_localhost is on. In production
 * mode, never a localhost URL (in any spelling) or a bare IP address, whatever the policy says.
 *
 * @example
 * isTrustedRedirectUrl('https://app.example.com/handler/email-verification', { domains: [{ domain: 'https://*.example.com' }], allowLocalhost: false }) // true
 * isTrustedRedirectUrl('http://localhost:3000/cb', { domains: [], allowLocalhost: false }) // false
 */
export function isTrustedRedirectUrl(url: string, policy: RedirectPolicy): boolean {
  // The URL parser would quietly strip tabs, newlines and outer spaces: refuse them instead.
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  const localhost = isLocalhost(parsed.hostname);
  if (policy.productionMode && (localhost || isIpAddress(parsed.hostname))) return false;
  if (policy.allowLocalhost && localhost) return true;
  return policy.domains.some(({ domain }) => matchesTrustedDomain(parsed, domain));
}

/**
 * Where a trusted domain can send users that production mode forbids (spec section 5, Production
 * mode): localhost in any spelling (`http://2130706433`, `https://*.localhost`, `https://**`) or a
 * bare IP address (`https://10.0.0.*`). null for a domain that is not valid (it matches nothing).
 *
 * @example trustedDomainReach('https://0x7f000001') // { localhost: true, ipAddress: true }
 */
export function trustedDomainReach(domain: string): { localhost: boolean; ipAddress: boolean } | null {
  const pattern = parseTrustedDomain(domain);
  if (!pattern) return null;
  if (!pattern.labels.some((label) => label.includes('*'))) {
    const host = pattern.labels.join('.');
    return { localhost: isLocalhost(host), ipAddress: isIpAddress(host) };
  }
  const localhost = ['localhost', 'localhost.', 'app.localhost', '127.0.0.1'].some((host) => matchHostPattern(pattern.labels, host));
  // Fill every wildcard with digits: a pattern that can then spell a dotted quad can match an IP.
  const ipAddress = ['1', '1.1', '1.1.1', '1.1.1.1'].some((run) =>
    isDottedQuad(pattern.labels.map((label) => (label === '**' ? run : label.replaceAll('*', '1'))).join('.')),
  );
  return { localhost, ipAddress };
}
