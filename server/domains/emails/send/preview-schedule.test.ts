import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type ProjectFixture, startHarness } from '../../../test/harness.js';
import { SMTP_PASSWORD, SMTP_USER, type SmtpSink, startSmtpSink } from '../../../test/smtp-sink.js';
import { expectKnownError, expectStatus } from '../../../test/team-fixtures.js';

/**
 * The editor's "Send a test to me" (POST /internal/emails/send-preview) and send-email's
 * scheduled_at_millis, over real SMTP to a local sink standing for the project's own server.
 */

let h: Harness;
let own: SmtpSink;
const PREVIEWS_PER_HOUR = 3;

beforeAll(async () => {
  own = await startSmtpSink({ username: SMTP_USER, password: SMTP_PASSWORD });
  h = await startHarness({ email: { testSendsPerHour: PREVIEWS_PER_HOUR, pollIntervalMs: 25 } });
});
afterAll(async () => {
  await h?.close();
  await own?.close();
});

async function withOwnServer(project: ProjectFixture, password = SMTP_PASSWORD) {
  const email_config = {
    type: 'standard',
    host: '127.0.0.1',
    port: own.port,
    username: SMTP_USER,
    password,
    sender_name: 'Acme',
    sender_email: 'news@acme.test',
  };
  expectStatus(await h.patch('/internal/projects/current', { config: { email_config } }, project.admin()), 200);
}

const source = (word: string) => `import { Heading, Text } from '@react-email/components';
import { Subject } from '@latch/emails';
export function EmailTemplate({ user }) {
  return <>
    <Subject value="Hello ${word}" />
    <Heading as="h1">${word} for {user.displayName}</Heading>
    <Text>Sent to {user.primaryEmail}</Text>
  </>;
}`;

describe('POST /internal/emails/send-preview', () => {
  it("renders the editor's source with the sample user and sends it to the signed-in owner only, through the project's server; listed with its body", async () => {
    const project = await h.createProject();
    await withOwnServer(project);
    const res = await h.post('/internal/emails/send-preview', { template_tsx_source: source('Kiwi'), theme_id: false }, project.ownerAdmin());
    expectStatus(res, 200);
    expect(res.body).toEqual({ to: project.owner.email, subject: '[Preview] Hello Kiwi', email_id: expect.any(String) });
    const mail = await own.waitFor((m) => m.subject === '[Preview] Hello Kiwi' && m.to.includes(project.owner.email), 20_000);
    expect(mail.to).toEqual([project.owner.email]);
    expect(mail.html).toContain('Kiwi for Ada Lovelace');
    expect(mail.text).toContain('Sent to ada@example.com');
    expect(mail.from?.address).toBe('news@acme.test');

    const listed = await h.get('/internal/emails', project.admin());
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: res.body.email_id, to: project.owner.email, subject: '[Preview] Hello Kiwi', state: 'sent', error: null }),
    ]);
    const detail = await h.get(`/internal/emails/${res.body.email_id}`, project.admin());
    expect(detail.body.html).toContain('Kiwi for Ada Lovelace');
  });

  it('refuses an admin key (no owner), the shared server, a source that does not compile (with its line) and a bad SMTP login (with the SMTP reply)', async () => {
    const project = await h.createProject();
    const body = { template_tsx_source: source('Pear') };
    expectKnownError(await h.post('/internal/emails/send-preview', body, project.ownerAdmin()), 400, 'REQUIRES_CUSTOM_EMAIL_SERVER');
    await withOwnServer(project);
    const keyed = await h.post('/internal/emails/send-preview', body, project.admin());
    expectKnownError(keyed, 400, 'EMAIL_PREVIEW_NEEDS_OWNER');
    expect(keyed.body.details).toEqual({ reason: 'no_owner_session' });

    const broken = await h.post('/internal/emails/send-preview', { template_tsx_source: source('Pear').replace('<Text>', '<Text') }, project.ownerAdmin());
    expectKnownError(broken, 400, 'EMAIL_RENDERING_ERROR');
    expect(broken.body.details.line).toBe(7);

    await withOwnServer(project, 'wrong-password');
    const refused = await h.post('/internal/emails/send-preview', body, project.ownerAdmin());
    expectKnownError(refused, 400, 'EMAIL_SERVER_SEND_FAILED');
    expect(refused.body.details).toEqual({ reason: 'auth_failed', smtp_error: 'The SMTP server refused the username or password (SMTP 535).' });
    expect(refused.body.error).toContain('refused the username or password');
    // The failed attempt is in the list with the reason the owner was told.
    const listed = await h.get('/internal/emails', project.admin());
    expect(listed.body.items).toEqual([expect.objectContaining({ state: 'failed', error: 'The SMTP server refused the username or password (SMTP 535).' })]);
    expect(own.received.some((m) => m.subject === '[Preview] Hello Pear')).toBe(false);
  });

  it('is rate limited per owner (after the source rendered: a compile error costs nothing)', async () => {
    const project = await h.createProject();
    await withOwnServer(project);
    for (let i = 0; i < 2; i++) {
      const broken = await h.post('/internal/emails/send-preview', { template_tsx_source: 'export function EmailTemplate( {' }, project.ownerAdmin());
      expectKnownError(broken, 400, 'EMAIL_RENDERING_ERROR');
    }
    for (let i = 0; i < PREVIEWS_PER_HOUR; i++) {
      expectStatus(await h.post('/internal/emails/send-preview', { template_tsx_source: source(`Fig${i}`) }, project.ownerAdmin()), 200);
    }
    const limited = await h.post('/internal/emails/send-preview', { template_tsx_source: source('Fig9') }, project.ownerAdmin());
    expectKnownError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("tenant isolation: another project's owner cannot preview this project's template, draft or theme, nor call as this project", async () => {
    const victim = await h.createProject();
    await withOwnServer(victim);
    const template = await h.post('/internal/email-templates', { display_name: 'Secret', tsx_source: source('Secret') }, victim.admin());
    expectStatus(template, 201);
    const draft = await h.post('/internal/email-drafts', { display_name: 'Secret draft', tsx_source: source('Hidden') }, victim.admin());
    expectStatus(draft, 201);
    const theme = await h.post('/internal/email-themes', { display_name: 'Secret theme' }, victim.admin());
    expectStatus(theme, 201);

    const attacker = await h.createProject();
    await withOwnServer(attacker);
    for (const body of [{ template_id: template.body.id }, { draft_id: draft.body.id }, { template_tsx_source: source('X'), theme_id: theme.body.id }]) {
      expectKnownError(await h.post('/internal/emails/send-preview', body, attacker.ownerAdmin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    }
    // The attacker's owner token presented for the victim project: not one of its owners.
    const asVictim = { ...victim.ownerAdmin(), 'x-latch-admin-access-token': attacker.owner.accessToken };
    expectKnownError(await h.post('/internal/emails/send-preview', { template_id: template.body.id }, asVictim), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    expect(own.received.some((m) => m.subject === '[Preview] Hello Secret' || m.subject === '[Preview] Hello Hidden')).toBe(false);
    expect((await h.get('/internal/emails', victim.admin())).body.items).toEqual([]);
    expect((await h.get('/internal/emails', attacker.admin())).body.items).toEqual([]);
  });
});

describe('send-email scheduled_at_millis', () => {
  it('refuses more than 30 days ahead; a draft scheduled for later is listed as scheduled and goes out at that time', async () => {
    const project = await h.createProject();
    await withOwnServer(project);
    const user = await h.signUpUser(project);
    const draft = (await h.post('/internal/email-drafts', { display_name: 'Later', tsx_source: source('Later') }, project.admin())).body.id;

    const tooFar = Date.now() + 31 * 24 * 3600 * 1000;
    const refused = await h.post('/emails/send-email', { user_ids: [user.userId], draft_id: draft, scheduled_at_millis: tooFar }, project.server());
    expectKnownError(refused, 400, 'EMAIL_SCHEDULE_TOO_FAR');
    expect(refused.body.details.scheduled_at_millis).toBe(tooFar);
    expect((await h.get('/internal/emails/scheduled', project.admin())).body.items).toEqual([]);

    const at = Date.now() + 3000;
    const res = await h.post('/emails/send-email', { user_ids: [user.userId], draft_id: draft, scheduled_at_millis: at }, project.server());
    expectStatus(res, 200);
    expect(res.body.scheduled_at_millis).toBe(at);
    const scheduled = await h.get('/internal/emails/scheduled', project.admin());
    expectStatus(scheduled, 200);
    expect(scheduled.body).toEqual({
      is_paginated: false,
      items: [
        {
          id: expect.any(String),
          scheduled_at_millis: at,
          subject: null,
          draft_id: draft,
          template_id: null,
          recipient_count: 1,
          created_at_millis: expect.any(Number),
        },
      ],
    });
    const before = (await h.get(`/internal/email-drafts/${draft}`, project.admin())).body;
    expect(before).toMatchObject({ scheduled_at_millis: at, sent_at_millis: null });
    expect((await h.get('/internal/email-drafts', project.admin())).body.items[0]).toMatchObject({ scheduled_at_millis: at });

    const mail = await own.waitFor((m) => m.to.includes(user.email) && m.subject === 'Hello Later', 30_000);
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(mail.html).toContain('Later for');
    // Gone from the scheduled list, the draft sent (from when it went), the email in the sent list.
    expect((await h.get('/internal/emails/scheduled', project.admin())).body.items).toEqual([]);
    const after = (await h.get(`/internal/email-drafts/${draft}`, project.admin())).body;
    expect(after.scheduled_at_millis).toBeNull();
    expect(after.sent_at_millis).toBeGreaterThanOrEqual(at);
    const sent = (await h.get('/internal/emails/sent', project.admin())).body.items;
    expect(sent).toEqual([expect.objectContaining({ id: res.body.results[0].email_id, subject: 'Hello Later', error: null, draft_id: draft })]);

    // Another project sees none of this project's scheduled sends.
    const other = await h.createProject();
    expect((await h.get('/internal/emails/scheduled', other.admin())).body.items).toEqual([]);
  });

  it('sends at once, unscheduled, when the time is already past', async () => {
    const project = await h.createProject();
    await withOwnServer(project);
    const user = await h.signUpUser(project);
    const res = await h.post(
      '/emails/send-email',
      { user_ids: [user.userId], html: '<p>Now</p>', subject: 'Past time', scheduled_at_millis: Date.now() - 60_000 },
      project.server(),
    );
    expectStatus(res, 200);
    expect(res.body.scheduled_at_millis).toBeNull();
    expect((await h.get('/internal/emails/scheduled', project.admin())).body.items).toEqual([]);
    await own.waitFor((m) => m.to.includes(user.email) && m.subject === 'Past time', 20_000);
  });
});
