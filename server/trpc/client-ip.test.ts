import { isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../env.js';
import { sessionsAfterForwardedSignIn } from '../test/forwarded-sign-in.js';
import { type Harness, type ProjectFixture, startHarness } from '../test/harness.js';
import { forwardedAddress, resolveClientIp } from './client-ip.js';

const trustAll = () => true;
const trustLoopback = (address: string) => address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';

describe('forwardedAddress', () => {
  it('reads IPv4 and IPv6 entries, with or without a port, and nothing else', () => {
    expect(forwardedAddress(' 203.0.113.7 ')).toBe('203.0.113.7');
    expect(forwardedAddress('203.0.113.7:51234')).toBe('203.0.113.7');
    expect(forwardedAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(forwardedAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(forwardedAddress('[2001:db8::1]')).toBe('2001:db8::1');
    for (const junk of ['', 'unknown', 'random-123', '999.1.1.1', '1.2.3', '1.2.3.4.5', '[1.2.3.4]', '::g', 'localhost', '_hidden', '203.0.113.7:99999999']) {
      expect(forwardedAddress(junk), junk).toBeNull();
    }
  });
});

describe('resolveClientIp', () => {
  it('is the socket address when no proxy is trusted, whatever the header says', () => {
    expect(resolveClientIp('127.0.0.1', '203.0.113.7', null)).toBe('127.0.0.1');
    expect(resolveClientIp('127.0.0.1', '203.0.113.7', () => false)).toBe('127.0.0.1');
  });

  it('walks from the nearest proxy and stops at the first untrusted address', () => {
    // The client forged the left entry; the trusted proxy appended what it saw.
    expect(resolveClientIp('127.0.0.1', '198.51.100.1, 203.0.113.7', trustLoopback)).toBe('203.0.113.7');
    expect(resolveClientIp('10.0.0.2', '198.51.100.1, 203.0.113.7', (_a, i) => i < 1)).toBe('203.0.113.7');
    expect(resolveClientIp('10.0.0.2', '198.51.100.1, 203.0.113.7', (_a, i) => i < 2)).toBe('198.51.100.1');
    // Everything trusted: the leftmost entry.
    expect(resolveClientIp('10.0.0.2', '198.51.100.1, 203.0.113.7', trustAll)).toBe('198.51.100.1');
  });

  it('ignores entries that are not IP addresses, so junk can neither be the client IP nor break the chain', () => {
    expect(resolveClientIp('127.0.0.1', 'junk-1', trustLoopback)).toBe('127.0.0.1');
    expect(resolveClientIp('127.0.0.1', '203.0.113.7, junk', trustLoopback)).toBe('203.0.113.7');
    expect(resolveClientIp('127.0.0.1', 'junk, 203.0.113.7', trustAll)).toBe('203.0.113.7');
    expect(resolveClientIp('127.0.0.1', ['junk', 'also junk, '], trustAll)).toBe('127.0.0.1');
    expect(resolveClientIp('127.0.0.1', '', trustAll)).toBe('127.0.0.1');
  });

  it('never returns anything but an IP address (or null without a socket address)', () => {
    expect(resolveClientIp(undefined, '203.0.113.7', trustAll)).toBeNull();
    for (const header of ['x', 'x, y', '1.2.3.4, x', 'x, ::1', '[::1]:80, 2001:db8::5']) {
      expect(isIP(resolveClientIp('::1', header, trustAll) ?? '')).not.toBe(0);
    }
  });
});

describe('the client IP over HTTP (X-Forwarded-For trusted from loopback, as the harness sets it)', () => {
  let h: Harness;
  let project: ProjectFixture;
  beforeAll(async () => {
    h = await startHarness({ rateLimits: { ...DEFAULT_RATE_LIMITS, signInPerIp: 3 } });
    project = await h.createProject();
  });
  afterAll(async () => h?.close());

  it('stores only a valid IP on the session when X-Forwarded-For carries junk', async () => {
    const user = await h.signUpUser(project);
    const ips = (await sessionsAfterForwardedSignIn(h, project, user, 'not-an-ip, <script>')).map((s) => s.last_used_at_end_user_ip_info?.ip);
    expect(ips.length).toBeGreaterThan(0);
    for (const ip of ips) expect(isIP(ip ?? ''), String(ip)).not.toBe(0);
  });

  it('counts requests with rotating junk X-Forwarded-For values against one per-IP budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await h.post(
        '/auth/password/sign-in',
        { email: h.uniqueEmail('nobody'), password: 'wrong-password-1' },
        { ...project.client(), 'x-forwarded-for': `rotating-${i}-${Math.random()}` },
      );
      statuses.push(res.status);
    }
    // signInPerIp is 3: the first three failures count against 127.0.0.1, then it is refused.
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
  });
});
