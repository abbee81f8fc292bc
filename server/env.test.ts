import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRUST_PROXY, loadEnv } from './env.js';
import { sessionsAfterForwardedSignIn } from './test/forwarded-sign-in.js';
import { type Harness, type ProjectFixture, startHarness } from './test/harness.js';

const SECRET = 'x'.repeat(48);
const envWith = (vars: Record<string, string>) => loadEnv({ LATCH_SECRET: SECRET, ...vars });

describe('LATCH_TRUST_PROXY', () => {
  it('parses hops, lists and false, and refuses "true" and anything else with a clear message', () => {
    // The default trusts no proxy: the socket address is the client IP.
    expect(envWith({}).trustProxy).toBe(false);
    expect(DEFAULT_TRUST_PROXY).toBe(false);
    expect(envWith({ LATCH_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(envWith({ LATCH_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(envWith({ LATCH_TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,loopback, fd00::/8' }).trustProxy).toBe('10.0.0.0/8, 192.168.1.7, loopback, fd00::/8');
    for (const bad of ['true', '11', 'everyone', '10.0.0.0/33', '10.0.0.1/8/9', 'fd00::/129']) {
      expect(() => envWith({ LATCH_TRUST_PROXY: bad }), bad).toThrow(/LATCH_TRUST_PROXY must be/);
    }
  });
});

describe('the client IP behind proxies (what per-IP limits and session IPs see)', () => {
  const harnesses: Harness[] = [];
  afterAll(async () => Promise.all(harnesses.map((h) => h.close())));

  /** Signs in with a forged X-Forwarded-For and returns the IP the new session recorded. */
  async function recordedIp(trustProxy: number | string | false): Promise<string | undefined> {
    const h = await startHarness({ trustProxy });
    harnesses.push(h);
    const project: ProjectFixture = await h.createProject();
    const user = await h.signUpUser(project);
    const items = await sessionsAfterForwardedSignIn(h, project, user, '203.0.113.7');
    // The sign-in's session is the newest one (sign-up made the other).
    const newest = [...items].sort((x, y) => y.created_at - x.created_at)[0];
    return newest?.last_used_at_end_user_ip_info?.ip;
  }

  it('honours X-Forwarded-For from a trusted proxy, and ignores it otherwise (the default trusts none)', async () => {
    const [byDefault, byHops, byLoopback, otherNetwork] = await Promise.all([
      recordedIp(DEFAULT_TRUST_PROXY),
      recordedIp(1),
      recordedIp('loopback'),
      recordedIp('10.0.0.0/8'),
    ]);
    expect(byHops).toBe('203.0.113.7');
    expect(byLoopback).toBe('203.0.113.7');
    // Not trusted: the socket's own address (the test connects over loopback).
    expect(byDefault).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    expect(otherNetwork).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    // Four servers start at once: slow on a loaded machine.
  }, 120_000);
});

describe('DATABASE_PREPARED_STATEMENTS', () => {
  it('is on by default, off with false, and refuses anything but a boolean', () => {
    expect(envWith({}).databasePreparedStatements).toBe(true);
    expect(envWith({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements).toBe(false);
    expect(envWith({ DATABASE_PREPARED_STATEMENTS: 'true' }).databasePreparedStatements).toBe(true);
    expect(() => envWith({ DATABASE_PREPARED_STATEMENTS: 'sometimes' })).toThrow('DATABASE_PREPARED_STATEMENTS must be true or false, got "sometimes"');
  });
});
