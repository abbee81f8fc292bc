/**
 * Trusted-domain and localhost rules of spec section 5, and the redirect-URL matcher built on them
 * (isTrustedRedirectUrl). Pure functions, no Node-only APIs: the SDK may share them.
 */

/** localhost, *.localhost, or 127.x.x.x */
export function isLocalhost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1';
}

export function isIpAddress(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** localhost, or a dotted domain whose top level is at least two letters. */
export function isValidHostname(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const labels = hostname.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l))) return false;
  return /^[a-z]{2,}$/i.test(labels[labels.length - 1]!);
}

/**
 * A trusted domain: an http(s) URL, wildcards (`*`) allowed only in the hostname, and a wildcard
 * hostname may not start or end with a dot or contain two dots in a row.
 */
export function validateTrustedDomain(domain: string): string | null {
  if (/\s/.test(domain)) return 'must not contain spaces';
  const match = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(domain);
  if (!match) return 'must be an http or https URL';
  const authority = match[2]!;
  const rest = match[3]!;
  if (rest.includes('*')) return 'may only use wildcards in the hostname';
  if (authority.includes('@')) return 'must not contain a user or password';
  const hostname = authority.replace(/:\d+$/, '');
  if (hostname.includes('*')) {
    if (hostname.startsWith('.') || hostname.endsWith('.') || hostname.includes('..')) return 'has an invalid wildcard hostname';
    if (!/^[a-z0-9*.-]+$/i.test(hostname)) return 'has an invalid wildcard hostname';
    return null;
  }
  try {
    new URL(domain);
  } catch {
    return 'must be a valid URL';
  }
  return null;
}

/** What decides where a link or redirect may point: the project's trusted domains and its localhost flag. */
export interface RedirectPolicy {
  domains: readonly { domain: string }[];
  allowLocalhost: boolean;
}

// Stand-ins for `**` and `*` while the URL parser normalises the rest of a wildcard domain
// (letter case, IDN to punycode, default port): both are valid hostname labels that survive it.
const MANY_LABELS = 'latch-wildcard-many';
const ONE_LABEL = 'latch-wildcard-one';

interface TrustedDomainPattern {
  protocol: string;
  /** Anchored; `*` matches within one label, `**` across labels. */
  hostname: RegExp;
  /** '' for the scheme's default port, as URL.port reports it. */
  port: string;
  /** '/' or a path prefix the URL must be inside of (whole segments). */
  path: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A trusted domain as a pattern, or null when it is not a valid trusted domain (it then matches nothing). */
export function parseTrustedDomain(domain: string): TrustedDomainPattern | null {
  if (validateTrustedDomain(domain) !== null) return null;
  let base: URL;
  try {
    base = new URL(domain.replaceAll('**', MANY_LABELS).replaceAll('*', ONE_LABEL));
  } catch {
    return null;
  }
  const hostname = escapeRegExp(base.hostname).replaceAll(MANY_LABELS, '[^/?#@:]+').replaceAll(ONE_LABEL, '[^./?#@:]+');
  return { protocol: base.protocol, hostname: new RegExp(`^${hostname}$`), port: base.port, path: base.pathname };
}

/** Whether `path` is `prefix` or below it, segment-wise (`/app` covers `/app/x`, not `/application`). */
function isWithinPath(path: string, prefix: string): boolean {
  if (prefix === '/' || path === prefix) return true;
  return path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

/**
 * Whether a parsed http(s) URL falls under one trusted domain: same scheme, same port (the default
 * one unless the domain names another), a hostname matching the domain's (where `*` stands for
 * exactly one non-empty label part and `**` for any run of labels), and a path inside the domain's
 * path. A domain that is not valid (see validateTrustedDomain) matches nothing.
 *
 * @example
 * matchesTrustedDomain(new URL('https://a.example.com/cb'), 'https://*.example.com') // true
 * matchesTrustedDomain(new URL('https://a.b.example.com/cb'), 'https://*.example.com') // false
 */
export function matchesTrustedDomain(url: URL, domain: string): boolean {
  const pattern = parseTrustedDomain(domain);
  if (!pattern) return false;
  return url.protocol === pattern.protocol && url.port === pattern.port && pattern.hostname.test(url.hostname) && isWithinPath(url.pathname, pattern.path);
}

/**
 * Whether Latch may send a user to `url`: in an emailed link (verification, password reset, magic
 * link, invitations) or a redirect. Without this check anyone could make a project's own emails
 * carry a link to a phishing site, or have a code delivered to a page they control.
 *
 * Trusted: an absolute http(s) URL without spaces or credentials (`https://app.example.com@evil.test`
 * is a classic disguise) that matches one of the project's trusted domains, or whose host is
 * localhost (localhost, *.localhost, 127.x.x.x, [::1]) while allow_localhost is on.
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
  if (policy.allowLocalhost && isLocalhost(parsed.hostname)) return true;
  return policy.domains.some(({ domain }) => matchesTrustedDomain(parsed, domain));
}
