import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type Headers_, type ProjectFixture, startHarness } from './harness.js';
import { type SmtpSink, startSmtpSink } from './smtp-sink.js';
import { expectKnownError, expectStatus } from './team-fixtures.js';

/**
 * Issue 13, items 4 and 8: a project's email settings are no way into the operator's network, and
 * a project's mail cannot be turned against its users, its budget or the operator's domain.
 *
 * `strict` runs with the production rules (LATCH_SMTP_ALLOW_PRIVATE=false, shared server for the
 * internal project only, small limits); `dev` with the test defaults (private hosts allowed), for
 * fake servers on 127.0.0.1.
 */

let strict: Harness;
let dev: Harness;
let shared: SmtpSink;
let devShared: SmtpSink;
/** A project's own server (closed after the harness: the worker keeps pooled connections open). */
let devOwn: SmtpSink;
let banner: Server;
let bannerPort: number;
let smtpBanner: Server;
let smtpBannerPort: number;

const BANNER = 'secret-banner-7f3a';
const HOURLY = 10;
const PER_IP = 3;
const PER_RECIPIENT = 2;
const TEST_SENDS = 5;
const callback = (page: string) => `http://localhost:3000/handler/${page}`;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  [shared, devShared, devOwn] = await Promise.all([startSmtpSink(), startSmtpSink(), startSmtpSink()]);
  // Not SMTP at all: an SSH server's greeting.
  banner = createServer((socket) => {
    socket.on('error', () => {});
    socket.write(`SSH-2.0-OpenSSH_9.6 ${BANNER}\r\n`);
  });
  // SMTP-looking, with its secrets in every line.
  smtpBanner = createServer((socket) => {
    socket.on('error', () => {});
    socket.write(`220 mail.corp.internal ESMTP ${BANNER}\r\n`);
    socket.on('data', () => socket.write(`554 5.7.1 ${BANNER} internal relay only\r\n`));
  });
  [bannerPort, smtpBannerPort] = await Promise.all([listen(banner), listen(smtpBanner)]);
  [strict, dev] = await Promise.all([
    startHarness({
      // Per-IP limits are tested with X-Forwarded-For from the loopback test client.
      trustProxy: 'loopback',
      email: {
        smtpUrl: shared.url,
        from: 'noreply@latch.test',
        fromName: 'Latch',
        allowPrivate: false,
        sharedEmail: 'internal',
        perProjectPerHour: HOURLY,
        clientSharePercent: 50,
        perIpPerHour: PER_IP,
        perRecipientPerHour: PER_RECIPIENT,
        testSendsPerHour: TEST_SENDS,
        pollIntervalMs: 25,
      },
    }),
    startHarness({ email: { smtpUrl: devShared.url, pollIntervalMs: 25 } }),
  ]);
});

afterAll(async () => {
  await Promise.all([strict?.close(), dev?.close()]);
  await Promise.all([shared?.close(), devShared?.close(), devOwn?.close()]);
  await Promise.all([banner, smtpBanner].map((server) => new Promise((resolve) => server?.close(resolve))));
});

function smtpConfig(host: string, port: number, overrides: Record<string, unknown> = {}) {
  return { type: 'standard', host, port, username: '', password: '', sender_name: 'Acme', sender_email: 'support@acme.test', ...overrides };
}

let callers = 0;
const callerIps = new Map<string, string>();
/** Each project's admin calls from its own IP: test emails are limited per caller (IP or owner) across projects. */
const callerIp = (project: ProjectFixture) => callerIps.get(project.id) ?? callerIps.set(project.id, `203.0.113.${++callers}`).get(project.id)!;
const testEmail = (h: Harness, project: ProjectFixture, config: Record<string, unknown>, headers: Headers_ = project.admin()) =>
  h.post('/internal/send-test-email', { recipient_email: h.uniqueEmail('test'), email_config: config }, { ...headers, 'x-forwarded-for': callerIp(project) });

async function waitForRow(h: Harness, to: string, done: (row: { state: string; error: string | null }) => boolean) {
  const started = Date.now();
  for (;;) {
    const row = await h.latch.deps.db.selectFrom('email_outbox').select(['state', 'error', 'subject']).where('to_email', '=', to).executeTakeFirst();
    if (row && done(row)) return row;
    if (Date.now() - started > 10_000) throw new Error(`outbox row to ${to} stayed ${JSON.stringify(row)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('item 4: no SSRF through email settings', () => {
  it.each([
    ['127.0.0.1', 25],
    ['10.0.0.1', 587],
    ['169.254.169.254', 25],
    ['100.64.0.1', 465],
    ['localhost', 587],
    ['::1', 2525],
    ['::ffff:127.0.0.1', 25],
    ['fd00:ec2::254', 25],
  ])('refuses a test email to %s:%s (a non-public address) with EMAIL_SERVER_HOST_NOT_ALLOWED', async (host, port) => {
    const project = await strict.createProject();
    const res = await testEmail(strict, project, smtpConfig(host, port));
    expectKnownError(res, 400, 'EMAIL_SERVER_HOST_NOT_ALLOWED');
    expect(res.body.details).toEqual({ host });
  });

  it('refuses a port outside 25, 465, 587 and 2525 before connecting anywhere', async () => {
    const project = await strict.createProject();
    for (const port of [22, 6379, 8080, bannerPort]) {
      const res = await testEmail(strict, project, smtpConfig('127.0.0.1', port));
      expectKnownError(res, 400, 'EMAIL_SERVER_PORT_NOT_ALLOWED');
      expect(res.body.details).toEqual({ port, allowed_ports: [25, 465, 587, 2525] });
    }
  });

  it("never echoes a fake server's banner: the test email says a generic reason", async () => {
    const project = await dev.createProject();
    for (const port of [bannerPort, smtpBannerPort]) {
      const res = await testEmail(dev, project, smtpConfig('127.0.0.1', port));
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ success: false, error_reason: 'connection_failed', error_message: 'The connection to the SMTP server failed.' });
      expect(JSON.stringify(res.body)).not.toContain(BANNER);
      expect(JSON.stringify(res.body)).not.toMatch(/SSH|ESMTP|corp\.internal/);
    }
  });

  it('never sends AUTH in cleartext: a server without STARTTLS gets no login (tls_failed)', async () => {
    const cleartext = await startSmtpSink({ username: 'smtp-user', password: 'smtp-password', starttls: false });
    try {
      const project = await dev.createProject();
      const res = await testEmail(dev, project, smtpConfig('127.0.0.1', cleartext.port, { username: 'smtp-user', password: 'smtp-password' }));
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ success: false, error_reason: 'tls_failed' });
      expect(cleartext.authAttempts).toBe(0);
      expect(cleartext.received).toEqual([]);
      // The same server with STARTTLS takes the login, over TLS.
      const tls = await startSmtpSink({ username: 'smtp-user', password: 'smtp-password' });
      try {
        const ok = await testEmail(dev, project, smtpConfig('127.0.0.1', tls.port, { username: 'smtp-user', password: 'smtp-password' }));
        expect(ok.body).toEqual({ success: true, error_message: null });
        expect(tls.authAttempts).toBe(1);
      } finally {
        await tls.close();
      }
    } finally {
      await cleartext.close();
    }
  });

  it("applies the same rule to a saved config in the outbox: a private host fails for good, a peer's words never reach the row", async () => {
    for (const host of ['127.0.0.1', 'localhost', '169.254.169.254']) {
      const project = await strict.createProject({ config: { email_config: smtpConfig(host, 2525) } });
      const to = strict.uniqueEmail('outbox');
      expectStatus(await strict.post('/internal/send-sign-in-invitation', { email: to, callback_url: callback('sign-in') }, project.admin()), 200);
      const row = await waitForRow(strict, to, (r) => r.state !== 'pending');
      expect(row).toMatchObject({ state: 'failed' });
      expect(row.error).toMatch(/non-public address/);
    }
    const portProject = await strict.createProject({ config: { email_config: smtpConfig('127.0.0.1', bannerPort) } });
    const portTo = strict.uniqueEmail('port');
    expectStatus(await strict.post('/internal/send-sign-in-invitation', { email: portTo, callback_url: callback('sign-in') }, portProject.admin()), 200);
    expect((await waitForRow(strict, portTo, (r) => r.state !== 'pending')).error).toMatch(/port is not one of/);

    const bannered = await dev.createProject({ config: { email_config: smtpConfig('127.0.0.1', smtpBannerPort) } });
    const to = dev.uniqueEmail('banner');
    expectStatus(await dev.post('/internal/send-sign-in-invitation', { email: to, callback_url: callback('sign-in') }, bannered.admin()), 200);
    const row = await waitForRow(dev, to, (r) => r.error !== null);
    expect(row.error).not.toContain(BANNER);
    const listed = await dev.get('/internal/emails', bannered.admin());
    expect(JSON.stringify(listed.body)).not.toContain(BANNER);
  });

  it('limits test emails per project and per owner, across their projects', async () => {
    const project = await strict.createProject();
    const config = smtpConfig('127.0.0.1', 25);
    for (let i = 0; i < TEST_SENDS; i++) expectKnownError(await testEmail(strict, project, config, project.ownerAdmin()), 400, 'EMAIL_SERVER_HOST_NOT_ALLOWED');
    expectKnownError(await testEmail(strict, project, config, project.ownerAdmin()), 429, 'RATE_LIMITED');
    // Another project of the same owner, through the console's token: the owner's budget is spent.
    const second = await strict.createProject({ owner: project.owner });
    expectKnownError(await testEmail(strict, second, config, second.ownerAdmin()), 429, 'RATE_LIMITED');
  });
});

describe('item 8: mail cannot be abused', () => {
  const magicProject = () => strict.createProject({ config: { magic_link_enabled: true } });
  const sendLink = (project: ProjectFixture, email: string, ip: string) =>
    strict.post('/auth/otp/send-sign-in-code', { email, callback_url: callback('magic-link-callback') }, { ...project.client(), 'x-forwarded-for': ip });
  const sendReset = (project: ProjectFixture, email: string, ip: string) =>
    strict.post('/auth/password/send-reset-code', { email, callback_url: callback('password-reset') }, { ...project.client(), 'x-forwarded-for': ip });
  const outboxCount = async (projectId: string) =>
    Number(
      (
        await strict.latch.deps.db
          .selectFrom('email_outbox as e')
          .innerJoin('tenancies as t', 't.id', 'e.tenancy_id')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('t.project_id', '=', projectId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('limits client requests that email an address per IP, before the project budget is touched', async () => {
    const project = await magicProject();
    for (let i = 0; i < PER_IP; i++) expectStatus(await sendLink(project, strict.uniqueEmail('ip'), '203.0.113.10'), 200);
    expectKnownError(await sendLink(project, strict.uniqueEmail('ip'), '203.0.113.10'), 429, 'RATE_LIMITED');
    // Resets from that IP count against the same limit, for unknown addresses too.
    expectKnownError(await sendReset(project, strict.uniqueEmail('ip'), '203.0.113.10'), 429, 'RATE_LIMITED');
    expect(await outboxCount(project.id)).toBe(PER_IP);
    // Another IP is unaffected, and the refusals used none of the client share: 5 - 3 = 2 left.
    expectStatus(await sendLink(project, strict.uniqueEmail('ip'), '203.0.113.11'), 200);
    expectStatus(await sendLink(project, strict.uniqueEmail('ip'), '203.0.113.12'), 200);
  });

  it('limits requests to one recipient, whoever asks and whether or not it has an account', async () => {
    const project = await magicProject();
    const victim = strict.uniqueEmail('victim');
    expectStatus(await sendLink(project, victim, '198.51.100.1'), 200);
    expectStatus(await sendReset(project, victim.toUpperCase(), '198.51.100.2'), 200);
    expectKnownError(await sendLink(project, victim, '198.51.100.3'), 429, 'RATE_LIMITED');
    expectKnownError(await sendReset(project, victim, '198.51.100.4'), 429, 'RATE_LIMITED');
    // The project's backend cannot bomb the address either.
    const team = await strict.post('/teams', { display_name: 'Team' }, project.server());
    expectKnownError(
      await strict.post('/team-invitations/send-code', { email: victim, team_id: team.body.id, callback_url: callback('team-invitation') }, project.server()),
      429,
      'RATE_LIMITED',
    );
  });

  it("keeps a share of the hourly budget that client requests cannot use up: the backend's and owner's mail still goes out", async () => {
    const project = await magicProject();
    const clientShare = HOURLY / 2;
    for (let i = 0; i < clientShare; i++) expectStatus(await sendLink(project, strict.uniqueEmail('flood'), `192.0.2.${i + 1}`), 200);
    const refused = await sendLink(project, strict.uniqueEmail('flood'), '192.0.2.100');
    expectKnownError(refused, 429, 'EMAIL_RATE_LIMITED');
    expect(refused.body.details.limit_per_hour).toBe(clientShare);
    // Client resets (known address or not) are refused alike once the share is spent.
    const user = await strict.signUpUser(project);
    const known = await sendReset(project, user.email, '192.0.2.101');
    const unknown = await sendReset(project, strict.uniqueEmail('nobody'), '192.0.2.102');
    expectKnownError(known, 429, 'EMAIL_RATE_LIMITED');
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
    // The reserved half: server and admin mail.
    const team = await strict.post('/teams', { display_name: 'Team' }, project.server());
    expectStatus(
      await strict.post(
        '/team-invitations/send-code',
        { email: strict.uniqueEmail('invitee'), team_id: team.body.id, callback_url: callback('team-invitation') },
        project.server(),
      ),
      200,
    );
    expectStatus(
      await strict.post('/internal/send-sign-in-invitation', { email: strict.uniqueEmail('invited'), callback_url: callback('sign-in') }, project.admin()),
      200,
    );
    expect(await outboxCount(project.id)).toBe(clientShare + 2);
  });

  it("sends through the shared server only for opted-in projects, as the operator's sender, with the project's name in the body only", async () => {
    const project = await strict.createProject({ displayName: 'PayPal Security' });
    const to = strict.uniqueEmail('phish');
    expectStatus(await strict.post('/internal/send-sign-in-invitation', { email: to, callback_url: callback('sign-in') }, project.admin()), 200);
    const row = await waitForRow(strict, to, (r) => r.state !== 'pending');
    expect(row.state).toBe('not-delivered');
    expect(row.error).toMatch(/LATCH_SHARED_EMAIL/);
    expect(shared.received.some((m) => m.to.includes(to))).toBe(false);

    // The console's own mail (the internal project) always goes out, as the operator.
    const owner = await strict.signUpOwner();
    expectStatus(
      await strict.post('/auth/password/send-reset-code', { email: owner.email, callback_url: callback('password-reset') }, strict.internalClient()),
      200,
    );
    expect((await shared.waitForTo(owner.email)).from).toEqual({ name: 'Latch', address: 'noreply@latch.test' });

    // The operator opts the project in (LATCH_SHARED_EMAIL=<project id>).
    const settings = strict.latch.deps.env.email;
    const before = settings.sharedEmail;
    settings.sharedEmail = [project.id];
    try {
      const next = strict.uniqueEmail('opted-in');
      const team = await strict.post('/teams', { display_name: 'Your account is locked, act now' }, project.server());
      expectStatus(
        await strict.post('/team-invitations/send-code', { email: next, team_id: team.body.id, callback_url: callback('team-invitation') }, project.server()),
        200,
      );
      const mail = await shared.waitForTo(next);
      expect(mail.from).toEqual({ name: 'Latch', address: 'noreply@latch.test' });
      expect(mail.subject).toBe('You are invited to join a team');
      expect(mail.subject).not.toMatch(/PayPal|locked/);
      expect(mail.text).toContain('PayPal Security');
      expect(mail.text).toContain('Your account is locked, act now');
    } finally {
      settings.sharedEmail = before;
    }
  });

  it("keeps a project's own sender name on its own SMTP server", async () => {
    const project = await dev.createProject({
      displayName: 'Acme',
      config: { email_config: smtpConfig('127.0.0.1', devOwn.port, { sender_name: 'Acme Support' }) },
    });
    const to = dev.uniqueEmail('own');
    expectStatus(await dev.post('/internal/send-sign-in-invitation', { email: to, callback_url: callback('sign-in') }, project.admin()), 200);
    expect((await devOwn.waitForTo(to)).from).toEqual({ name: 'Acme Support', address: 'support@acme.test' });
  });
});
