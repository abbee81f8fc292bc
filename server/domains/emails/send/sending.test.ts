import { describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../../../test/harness.js';
import { useMailHarness } from '../../../test/mail-harness.js';
import { SMTP_PASSWORD, SMTP_USER } from '../../../test/smtp-sink.js';
import { expectKnownError, expectStatus } from '../../../test/team-fixtures.js';
import { BUILT_IN_TEMPLATES, BUILT_IN_TEMPLATE_TYPES, DEFAULT_DARK_THEME_ID, DEFAULT_LIGHT_THEME_ID, BUILT_IN_THEMES } from '../content/default-sources.js';
import { renderOwnerEmail } from '../sandbox/index.js';
import { MARKETING_CATEGORY_ID } from '../../../../contract/schemas/notifications.js';

/**
 * Owner templates on the way out, over real SMTP to local sinks: a built-in email rendered with the
 * project's edited template and theme, the default when the owner's template fails, and
 * send-email to several users (each rendered with their own data) ending in the sink and the sent list.
 */

const { h, shared, own } = useMailHarness({ clientSharePercent: 100 });
const PASSWORD = 'correct-horse-battery';

const verificationCallback = 'http://localhost:3000/handler/email-verification';

async function signUp(project: ProjectFixture, email: string, displayName?: string) {
  const res = await h.post('/auth/password/sign-up', { email, password: PASSWORD, verification_callback_url: verificationCallback }, project.client());
  expectStatus(res, 200);
  const userId = res.body.user_id as string;
  if (displayName) expectStatus(await h.patch(`/users/${userId}`, { display_name: displayName }, project.server()), 200);
  return userId;
}

async function withOwnServer(project: ProjectFixture) {
  const email_config = {
    type: 'standard',
    host: '127.0.0.1',
    port: own.port,
    username: SMTP_USER,
    password: SMTP_PASSWORD,
    sender_name: 'Acme',
    sender_email: 'news@acme.test',
  };
  expectStatus(await h.patch('/internal/projects/current', { config: { email_config } }, project.admin()), 200);
}

describe('built-in emails through owner templates', () => {
  it('sends a themed verification email: the edited template through the dark theme, over SMTP; its link still verifies', async () => {
    const project = await h.createProject({ displayName: 'Acme' });
    const id = BUILT_IN_TEMPLATES.email_verification.id;
    const edited = BUILT_IN_TEMPLATES.email_verification.tsxSource.replace(
      '<Subject value="Verify your email" />',
      '<Subject value="Confirm your Acme address" />',
    );
    expectStatus(await h.patch(`/internal/email-templates/${id}`, { tsx_source: edited }, project.admin()), 200);
    expectStatus(await h.patch('/internal/projects/current', { config: { email_theme: DEFAULT_DARK_THEME_ID } }, project.admin()), 200);

    const email = h.uniqueEmail('themed');
    await signUp(project, email);
    const mail = await shared.waitForTo(email);
    expect(mail.subject).toBe('Confirm your Acme address');
    expect(mail.html).toContain('background-color:#0d1117');
    expect(mail.link?.startsWith(`${verificationCallback}?code=`)).toBe(true);
    expectStatus(await h.post('/contact-channels/verify', { code: mail.code }, project.client()), 200);
  });

  it("falls back to the default email when the owner's template fails to render, so sign-in emails keep going out", async () => {
    const project = await h.createProject({ displayName: 'Fallback Co' });
    const throwing = "import { Text } from '@react-email/components';\nexport function EmailTemplate() { throw new Error('oops'); }";
    expectStatus(await h.patch(`/internal/email-templates/${BUILT_IN_TEMPLATES.email_verification.id}`, { tsx_source: throwing }, project.admin()), 200);
    const email = h.uniqueEmail('fallback');
    await signUp(project, email);
    const mail = await shared.waitForTo(email);
    expect(mail.subject).toBe('Verify your email');
    expect(mail.html).toContain('Fallback Co');
    expect(mail.code).toBeTruthy();
  });
});

describe('default template sources', () => {
  it.each(BUILT_IN_TEMPLATE_TYPES)('%s renders through Default Light to the golden HTML', async (type) => {
    const rendered = await renderOwnerEmail(
      { template: BUILT_IN_TEMPLATES[type].tsxSource, theme: BUILT_IN_THEMES[0].tsxSource },
      {
        user: { displayName: 'Ada' },
        project: { displayName: 'Acme' },
        variables: goldenVariables(type),
        unsubscribeLink: null,
        projectLogos: { logoUrl: null, fullLogoUrl: 'https://cdn.acme.test/logo.png' },
      },
    );
    expect(rendered.subject).toBeTruthy();
    expect(rendered.html).toMatchSnapshot();
    expect(rendered.text).toMatchSnapshot();
  });
});

function goldenVariables(type: (typeof BUILT_IN_TEMPLATE_TYPES)[number]): Record<string, unknown> {
  const base = { link: 'https://acme.test/handler/x?code=abc', expiresAt: 'Thu, 01 Jan 2026 00:00:00 GMT' };
  if (type === 'magic_link') return { ...base, otp: 'ABC123' };
  if (type === 'team_invitation') return { ...base, teamDisplayName: 'Core' };
  if (type === 'sign_in_invitation') return { link: base.link };
  return base;
}

describe('POST /emails/send-email', () => {
  const newsletter = `import { Heading, Text } from '@react-email/components';
import { Subject, NotificationCategory } from '@latch/emails';
export const variablesSchema = { edition: 'number' };
export function EmailTemplate({ user, variables }) {
  return <>
    <Subject value={'Edition ' + variables.edition} />
    <NotificationCategory value="Marketing" />
    <Heading as="h1">Hello {user.displayName}</Heading>
    <Text>Edition {variables.edition} for {user.primaryEmail}</Text>
  </>;
}`;

  it('needs the project own email server, known users and valid variables; nothing is queued otherwise', async () => {
    const project = await h.createProject();
    const userId = await signUp(project, h.uniqueEmail('r'));
    const template = (await h.post('/internal/email-templates', { display_name: 'News', tsx_source: newsletter }, project.admin())).body.id;
    expectKnownError(
      await h.post('/emails/send-email', { user_ids: [userId], html: '<p>Hi</p>', subject: 'Hi' }, project.server()),
      400,
      'REQUIRES_CUSTOM_EMAIL_SERVER',
    );
    await withOwnServer(project);
    expectKnownError(
      await h.post('/emails/send-email', { user_ids: ['00000000-0000-4000-8000-000000000000'], html: '<p>Hi</p>', subject: 'Hi' }, project.server()),
      400,
      'EMAIL_RECIPIENTS_NOT_FOUND',
    );
    const unknown = await h.post(
      '/emails/send-email',
      { user_ids: [userId], template_id: template, variables: { edition: 3, color: 'red' } },
      project.server(),
    );
    expectKnownError(unknown, 400, 'EMAIL_RENDERING_ERROR');
    expect(unknown.body.error).toContain('Unknown variable: color');
    const wrong = await h.post('/emails/send-email', { user_ids: [userId], template_id: template, variables: { edition: 'three' } }, project.server());
    expectKnownError(wrong, 400, 'EMAIL_RENDERING_ERROR');
    expectKnownError(await h.post('/emails/send-email', { user_ids: [userId], html: '<p>Hi</p>' }, project.server()), 400, 'SCHEMA_ERROR');
    expect((await h.get('/internal/emails/sent', project.admin())).body.items).toEqual([]);
    expectStatus(await h.post('/emails/send-email', { user_ids: [userId], html: '<p>Hi</p>', subject: 'Hi' }, project.client()), 401);
  });

  it('renders a template for each user with their own data, delivers through the project server, and lists each in the sent list', async () => {
    const project = await h.createProject({ displayName: 'News Co' });
    await withOwnServer(project);
    const people = [
      { email: h.uniqueEmail('ada'), name: 'Ada' },
      { email: h.uniqueEmail('grace'), name: 'Grace' },
      { email: h.uniqueEmail('alan'), name: 'Alan' },
    ];
    const ids = [];
    for (const p of people) ids.push(await signUp(project, p.email, p.name));
    const template = (
      await h.post('/internal/email-templates', { display_name: 'News', tsx_source: newsletter, theme_id: DEFAULT_LIGHT_THEME_ID }, project.admin())
    ).body.id;

    const started = Date.now();
    const res = await h.post('/emails/send-email', { user_ids: ids, template_id: template, variables: { edition: 7 } }, project.server());
    expectStatus(res, 200);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.body.results.map((r: { user_id: string }) => r.user_id).sort()).toEqual([...ids].sort());

    for (const p of people) {
      const mail = await own.waitFor((m) => m.to.includes(p.email) && m.subject.startsWith('Edition'), 20_000);
      expect(mail.subject).toBe('Edition 7');
      expect(mail.html).toContain(`Hello ${p.name}`);
      expect(mail.text).toContain(`for ${p.email}`);
      expect(mail.from?.address).toBe('news@acme.test');
    }
    const sent = await h.get('/internal/emails/sent', project.admin());
    expectStatus(sent, 200);
    expect(sent.body.items).toHaveLength(3);
    for (const item of sent.body.items)
      expect(item).toMatchObject({ subject: 'Edition 7', error: null, template_id: template, sent_at_millis: expect.any(Number) });
    // Each sent email is also an outbox email with its rendered body.
    const one = await h.get(`/internal/emails/${sent.body.items[0].id}`, project.admin());
    expect(one.body.html).toContain('Edition 7');

    // Another project sees none of it.
    const other = await h.createProject();
    expect((await h.get('/internal/emails/sent', other.admin())).body.items).toEqual([]);
  });

  it('sends a draft to all users and marks the draft sent', async () => {
    const project = await h.createProject();
    await withOwnServer(project);
    const email = h.uniqueEmail('all');
    await signUp(project, email);
    const draft = (
      await h.post(
        '/internal/email-drafts',
        { display_name: 'Hello', tsx_source: newsletter.replace("{ edition: 'number' }", "{ edition: 'number?' }") },
        project.admin(),
      )
    ).body.id;
    const res = await h.post('/emails/send-email', { all_users: true, draft_id: draft }, project.server());
    expectStatus(res, 200);
    expect(res.body.results).toHaveLength(1);
    await own.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Edition'), 20_000);
    expect((await h.get(`/internal/email-drafts/${draft}`, project.admin())).body.sent_at_millis).toEqual(expect.any(Number));
  });

  it('a batch: each recipient gets their own data and sees no other recipient’s, an unsubscribed one is skipped, a failing render is recorded and the rest go out', async () => {
    const project = await h.createProject({ displayName: 'Batch Co' });
    await withOwnServer(project);
    // Globals a render leaves behind: a fresh context per recipient means each sees only itself.
    const template = `import { Text } from '@react-email/components';
import { Subject, NotificationCategory } from '@latch/emails';
export const variablesSchema = { edition: 'number' };
export function EmailTemplate({ user, variables }) {
  if (user.displayName === 'Boom') throw new Error('no mail for Boom');
  globalThis.seen = (globalThis.seen || []).concat(user.primaryEmail);
  Object.prototype.leaked = (Object.prototype.leaked || '') + user.primaryEmail;
  return <>
    <Subject value={'Batch ' + variables.edition + ' for ' + user.displayName} />
    <NotificationCategory value="Marketing" />
    <Text>{'seen=' + globalThis.seen.join('|') + ';leaked=' + ({}).leaked}</Text>
  </>;
}`;
    const people = ['Ada', 'Grace', 'Boom', 'Alan', 'Quit'].map((name) => ({ name, email: h.uniqueEmail(name.toLowerCase()) }));
    const ids: string[] = [];
    for (const p of people) ids.push(await signUp(project, p.email, p.name));
    const quitter = ids[4]!;
    expectStatus(await h.patch(`/emails/notification-preference/${quitter}/${MARKETING_CATEGORY_ID}`, { enabled: false }, project.server()), 200);
    const templateId = (await h.post('/internal/email-templates', { display_name: 'Batch', tsx_source: template, theme_id: false }, project.admin())).body.id;

    const res = await h.post('/emails/send-email', { user_ids: ids, template_id: templateId, variables: { edition: 9 } }, project.server());
    expectStatus(res, 200);
    const emailOf = new Map(res.body.results.map((r: { user_id: string; email_id: string }) => [r.user_id, r.email_id]));

    for (const p of people.filter((x) => x.name !== 'Boom' && x.name !== 'Quit')) {
      const mail = await own.waitFor((m) => m.to.includes(p.email) && m.subject.startsWith('Batch'), 30_000);
      expect(mail.subject).toBe(`Batch 9 for ${p.name}`);
      expect(mail.text).toContain(`seen=${p.email};leaked=${p.email}`);
    }
    await expect.poll(async () => (await h.get('/internal/emails/sent', project.admin())).body.items.length, { timeout: 30_000, interval: 100 }).toBe(5);
    const sent = new Map<string, { error: string | null; sent_at_millis: number | null }>(
      (await h.get('/internal/emails/sent', project.admin())).body.items.map((i: { id: string }) => [i.id, i]),
    );
    expect(sent.get(emailOf.get(ids[2]!) as string)).toMatchObject({ sent_at_millis: null, error: expect.stringContaining('no mail for Boom') });
    expect(sent.get(emailOf.get(quitter) as string)).toMatchObject({ sent_at_millis: null, error: 'The user turned off emails of the category Marketing.' });
    for (const i of [0, 1, 3]) expect(sent.get(emailOf.get(ids[i]!) as string)).toMatchObject({ error: null, sent_at_millis: expect.any(Number) });
    // Their sign-up verification emails arrived; the batch's email did not.
    expect(own.received.filter((m) => (m.to.includes(people[2]!.email) || m.to.includes(people[4]!.email)) && m.subject.startsWith('Batch'))).toEqual([]);
  });
});
