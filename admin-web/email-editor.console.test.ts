import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { type Harness, type OwnerSession, type ProjectFixture, startHarness } from '../server/test/harness.js';
import { type TestBrowser, launchBrowser } from '../server/test/browser.js';
import { SMTP_PASSWORD, SMTP_USER, type SmtpSink, startSmtpSink } from '../server/test/smtp-sink.js';
import { expectStatus } from '../server/test/team-fixtures.js';
import { startAiFake } from '../server/test/ai-fake.js';
import { buildAdminIfStale } from './build.js';

/**
 * The console's email editor in headless Chromium against a real server and a local SMTP sink
 * standing for the project's own server: editing a template re-renders the preview, a compile
 * error is marked at its line (and undo brings the working source back), "Send a test to me"
 * reaches the sink and the sent list, and a draft goes from writing to picked recipients to the
 * sink, and to "scheduled" when sent later.
 */

const OWNER_PASSWORD = 'owner-password-1';
let h: Harness;
let browser: TestBrowser;
let sink: SmtpSink;

beforeAll(async () => {
  await buildAdminIfStale();
  sink = await startSmtpSink({ username: SMTP_USER, password: SMTP_PASSWORD });
  [h, browser] = await Promise.all([startHarness({ email: { pollIntervalMs: 25 } }), launchBrowser()]);
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
  await sink?.close();
});

const source = (word: string) => `import { Heading, Text } from '@react-email/components';
import { Subject } from '@latch/emails';
export function EmailTemplate({ user }) {
  return <>
    <Subject value="Hello ${word}" />
    <Heading as="h1">${word} for {user.displayName}</Heading>
    <Text>A ${word} paragraph.</Text>
  </>;
}`;

async function projectWithOwnServer(): Promise<{ owner: OwnerSession; project: ProjectFixture }> {
  const owner = await h.signUpOwner();
  const project = await h.createProject({ owner, displayName: 'Editor Co' });
  const email_config = {
    type: 'standard',
    host: '127.0.0.1',
    port: sink.port,
    username: SMTP_USER,
    password: SMTP_PASSWORD,
    sender_name: 'Editor Co',
    sender_email: 'hello@editor.test',
  };
  expectStatus(await h.patch('/internal/projects/current', { config: { email_config } }, project.admin()), 200);
  return { owner, project };
}

async function signIn(page: Page, owner: OwnerSession, path: string) {
  page.setDefaultTimeout(30_000);
  await page.goto(`${h.url}${path}`);
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill(OWNER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.cm-content').waitFor({ timeout: 60_000 });
}

/** Replaces the editor's whole text the way a paste does (one input, no auto-indent). */
async function replaceSource(page: Page, text: string) {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(text);
}

const previewText = (page: Page) =>
  page
    .frameLocator('iframe[title="Email preview"]')
    .locator('body')
    .textContent({ timeout: 5_000 })
    .catch(() => '');

describe('email editor in the console', { timeout: 240_000 }, () => {
  it('edits a template with a live preview, marks a compile error at its line, undoes it, and sends a test to the owner', async () => {
    const { owner, project } = await projectWithOwnServer();
    const created = await h.post('/internal/email-templates', { display_name: 'Welcome', tsx_source: source('Kiwi'), theme_id: false }, project.admin());
    expectStatus(created, 201);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, owner, `/projects/${project.id}/email-editor/template:${created.body.id}`);

    await expect.poll(() => previewText(page), { timeout: 60_000 }).toContain('Kiwi for Ada Lovelace');
    expect(await page.getByTestId('preview-subject').textContent()).toBe('Hello Kiwi');
    // This server has no LATCH_AI_BASE_URL: the assistant beside the source says how to turn it on, before anyone asks.
    await expect.poll(() => page.getByRole('region', { name: 'AI assistant' }).textContent()).toContain('set LATCH_AI_BASE_URL');

    // Typing re-renders the preview (debounced), with no save.
    await replaceSource(page, source('Mango'));
    await expect.poll(() => previewText(page), { timeout: 60_000 }).toContain('Mango for Ada Lovelace');
    await page.getByRole('tab', { name: 'Mobile' }).click();
    expect(await page.locator('iframe[title="Email preview"]').evaluate((frame) => (frame as HTMLIFrameElement).getBoundingClientRect().width)).toBe(375);
    await page.getByRole('tab', { name: 'Plain text' }).click();
    await expect.poll(() => page.getByLabel('Plain text preview').textContent()).toContain('A Mango paragraph.');
    await page.getByRole('tab', { name: 'Desktop' }).click();

    // A compile error on line 7: the line is marked in the editor, with its message, and in the preview pane.
    await replaceSource(page, source('Mango').replace('<Text>', '<Text'));
    await page.locator('.cm-error-line').waitFor({ timeout: 60_000 });
    expect(await page.locator('.cm-error-line').getAttribute('data-error-line')).toBe('7');
    expect(await page.locator('.cm-error-marker').count()).toBe(1);
    expect(await page.locator('.cm-error-message').textContent()).toMatch(/^Line 7: /);
    expect(await page.getByRole('alert', { name: 'Rendering error' }).textContent()).toContain('Line 7');
    // The 7th line of the editor is the one highlighted.
    const lines = await page.locator('.cm-line').allTextContents();
    expect(lines[6]).toContain('<TextA Mango paragraph.');
    expect(await page.locator('.cm-line').nth(6).getAttribute('class')).toContain('cm-error-line');

    // Undo (history) brings the working source back, and the error goes.
    await page.keyboard.press('Control+z');
    await expect.poll(async () => page.locator('.cm-error-line').count(), { timeout: 60_000 }).toBe(0);
    await expect.poll(() => previewText(page), { timeout: 60_000 }).toContain('Mango for Ada Lovelace');

    // Save, then "Send a test to me": it reaches the project's SMTP server, addressed to the owner only.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Saved' }).waitFor();
    expect((await h.get(`/internal/email-templates/${created.body.id}`, project.admin())).body.tsx_source).toBe(source('Mango'));
    await page.getByRole('button', { name: 'Send a test to me' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Test sent' }).textContent()).toContain(`[Preview] Hello Mango → ${owner.email}`);
    const mail = await sink.waitFor((m) => m.subject === '[Preview] Hello Mango', 30_000);
    expect(mail.to).toEqual([owner.email]);
    expect(mail.html).toContain('Mango for Ada Lovelace');

    // The sent list shows it, and its body in a sandboxed frame.
    await page.getByRole('link', { name: 'Emails', exact: true }).click();
    const row = page.getByRole('table', { name: 'Sent emails' }).getByRole('row').filter({ hasText: '[Preview] Hello Mango' });
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toContain(owner.email);
    expect(await row.textContent()).toContain('sent');
    await row.getByRole('link').click();
    const frame = page.locator('iframe[title="Email: [Preview] Hello Mango"]');
    expect(await frame.getAttribute('sandbox')).toBe('');
    await expect
      .poll(() => page.frameLocator('iframe[title="Email: [Preview] Hello Mango"]').locator('body').textContent())
      .toContain('Mango for Ada Lovelace');
    await context.close();
  });

  it('drafts: write, preview, pick recipients, send (to the sink and the sent list), then schedule one for later', async () => {
    const { owner, project } = await projectWithOwnServer();
    const picked = await h.signUpUser(project, { email: h.uniqueEmail('picked') });
    const other = await h.signUpUser(project, { email: h.uniqueEmail('other') });
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${h.url}/projects/${project.id}/email-editor`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'New draft' }).click();
    await page.locator('.cm-content').waitFor({ timeout: 60_000 });

    await replaceSource(page, source('Launch'));
    await expect.poll(() => previewText(page), { timeout: 60_000 }).toContain('Launch for Ada Lovelace');

    await page.getByLabel('Picked users').check();
    await page.getByRole('list', { name: 'Users to send to' }).getByText(picked.email).click();
    await page.getByRole('button', { name: 'Send now' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Queued' }).textContent()).toContain('Queued for 1 recipient(s).');
    const mail = await sink.waitFor((m) => m.subject === 'Hello Launch' && m.to.includes(picked.email), 30_000);
    expect(mail.html).toContain('Launch for');
    expect(sink.received.some((m) => m.to.includes(other.email))).toBe(false);
    // The draft was saved before it was sent, and is marked sent.
    const drafts = (await h.get('/internal/email-drafts', project.admin())).body.items;
    expect(drafts).toEqual([expect.objectContaining({ tsx_source: source('Launch'), sent_at_millis: expect.any(Number) })]);
    await expect.poll(() => page.getByRole('navigation', { name: 'Email content' }).textContent()).toContain('sent');

    // Later, to all users: listed as scheduled (the draft and the Emails page).
    await page.getByLabel('All users').check();
    await page.getByLabel('Send later').check();
    const at = new Date(Date.now() + 2 * 24 * 3600 * 1000);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Send at').fill(local);
    await page.getByRole('button', { name: 'Schedule' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Scheduled' }).textContent()).toContain('2 recipient(s)');
    await expect.poll(() => page.getByRole('navigation', { name: 'Email content' }).textContent()).toContain('scheduled');

    await page.getByRole('link', { name: 'Sent emails' }).click();
    const scheduled = page.getByRole('table', { name: 'Scheduled emails' });
    await expect.poll(() => scheduled.textContent(), { timeout: 30_000 }).toContain('scheduled');
    expect(await scheduled.textContent()).toContain('Draft');
    const sentRow = page.getByRole('table', { name: 'Sent emails' }).getByRole('row').filter({ hasText: picked.email });
    await expect.poll(() => sentRow.textContent(), { timeout: 30_000 }).toContain('Hello Launch');
    await context.close();
  });

  it("applies the AI assistant's proposal (rendered by the server first) to the editor, and the preview follows", async () => {
    const fake = await startAiFake();
    const ai = await startHarness({ ai: { baseUrl: fake.baseUrl, apiKey: 'sk-test-key', model: 'fake-model' } });
    try {
      const owner = await ai.signUpOwner();
      const project = await ai.createProject({ owner });
      const created = await ai.post('/internal/email-templates', { display_name: 'AI', tsx_source: source('Plum'), theme_id: false }, project.admin());
      expectStatus(created, 201);
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(`${ai.url}/projects/${project.id}/email-editor/template:${created.body.id}`);
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill(OWNER_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('.cm-content').waitFor({ timeout: 60_000 });
      await expect.poll(() => previewText(page), { timeout: 60_000 }).toContain('Plum for Ada Lovelace');

      await page.getByLabel('Message to the AI assistant').fill('propose');
      await page.getByLabel('Message to the AI assistant').press('Enter');
      await page.getByRole('button', { name: 'Use this' }).click({ timeout: 60_000 });
      await expect.poll(() => page.locator('.cm-content').textContent(), { timeout: 30_000 }).toContain('Fresh news');
      await expect.poll(() => previewText(page), { timeout: 60_000 }).toContain('Hi Ada Lovelace, here is the news.');
      // The model saw the source that was in the editor.
      expect(JSON.stringify(fake.requests.at(-1)?.body.messages)).toContain('Plum for');
      expect(await page.getByRole('region', { name: 'AI assistant' }).textContent()).not.toContain('LATCH_AI_BASE_URL');
      await context.close();
    } finally {
      await ai.close();
      await fake.close();
    }
  });
});
