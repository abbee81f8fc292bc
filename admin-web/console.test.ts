import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { KnownErrors } from '../contract/errors/known-errors.js';
import type { ProjectFixture } from '../server/test/harness.js';
import { SMTP_PASSWORD, SMTP_USER, type SmtpSink, startSmtpSink } from '../server/test/smtp-sink.js';
import { type ConsolePage, OWNER_PASSWORD, signInOwner, useConsoleSuite } from './test/console-suite.js';

/**
 * The admin console in real headless Chromium against a real server (fresh database) that serves
 * the built SPA, as an owner would use it. One browser for the file, a fresh context per test;
 * screenshots go to test-artifacts/admin-web/. What the UI claims is checked through the API.
 */
/** A full-page screenshot from the top (the sticky sidebar would otherwise sit where the page was scrolled). */
async function shot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await suite.browser.screenshot(page, 'admin-web', name);
}
const suite = useConsoleSuite();
let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink({ username: SMTP_USER, password: SMTP_PASSWORD });
});
afterAll(async () => {
  await sink?.close();
});

function newPage(options: { clipboard?: boolean } = {}): Promise<ConsolePage> {
  return suite.newPage({ context: options.clipboard ? { permissions: ['clipboard-read', 'clipboard-write'] } : {} });
}

// Evaluated through the DevTools protocol rather than a <script> tag, which the console's CSP refuses.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2 A/AA rules on the page as it is now: no serious or critical violation. */
async function expectAccessible(page: Page, where: string) {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
  });
  expect(violations, where).toEqual([]);
}

/** Signed in (the session is in the cookies) once the console's chrome shows. */
function signIn(page: Page, email: string, path = '/') {
  return signInOwner(suite, page, path, email);
}

/** A project made through the API, and a page signed in as its owner, on the given project page. */
async function ownerOn(pagePath: string, options: { config?: Record<string, unknown> } = {}) {
  const project = await suite.h.createProject({ displayName: 'Console test', ...options });
  const { context, page, errors } = await newPage();
  await signIn(page, project.owner.email, `/projects/${project.id}/${pagePath}`);
  return { project, context, page, errors };
}

async function config(project: ProjectFixture) {
  const res = await suite.h.get('/internal/projects/current', project.admin());
  expect(res.status).toBe(200);
  return res.body.config;
}

/** The status the API answers a project's super secret admin key with (200 while it is live). */
async function adminKeyStatus(project: ProjectFixture, adminKey: string): Promise<number> {
  const res = await suite.h.get('/internal/projects/current', {
    'x-latch-project-id': project.id,
    'x-latch-access-type': 'admin',
    'x-latch-super-secret-admin-key': adminKey,
  });
  return res.status;
}

// Generous per-test time: the machine is shared, and a browser flow is many round trips.
describe('admin console', { timeout: 90_000 }, () => {
  it('serves the SPA at / and at client-side routes, never for API paths; assets cached for a year', async () => {
    const root = await fetch(`${suite.h.url}/`);
    expect(root.headers.get('content-type')).toContain('text/html');
    expect(root.headers.get('cache-control')).toBe('no-cache');
    expect(root.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(root.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await root.text();
    expect(html).toContain('<div id="root">');
    const deep = await fetch(`${suite.h.url}/projects/abc/users`);
    expect(await deep.text()).toBe(html);
    const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    const assetResponse = await fetch(`${suite.h.url}${asset}`);
    expect(assetResponse.status).toBe(200);
    expect(assetResponse.headers.get('cache-control')).toContain('immutable');
    // React's production build (a development build, as NODE_ENV=test would give, is half as big again).
    const gzipped = gzipSync(Buffer.from(await assetResponse.arrayBuffer())).length;
    console.log(`Admin console first chunk: ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
    expect(gzipped).toBeLessThan(160 * 1024);
    expect((await fetch(`${suite.h.url}/assets/missing.js`)).status).toBe(404);
    const api = await fetch(`${suite.h.url}/api/v1/nope`);
    expect(api.headers.get('content-type')).toContain('application/json');
    const unknownApi = await fetch(`${suite.h.url}/api/nope`);
    expect(unknownApi.status).toBe(404);
    expect(await unknownApi.text()).not.toContain('<div id="root">');
    expect(await (await fetch(`${suite.h.url}/health`)).json()).toMatchObject({ status: 'ok' });
  });

  it('signs an owner up, creates a project and shows its keys once, with copy buttons that copy working keys', async () => {
    const { context, page, errors } = await newPage({ clipboard: true });
    await page.goto(suite.h.url);
    await page.getByRole('heading', { name: 'Sign in to Latch' }).waitFor({ state: 'attached' });
    await shot(page, '01-sign-in');
    await expectAccessible(page, 'sign-in');
    await page.getByRole('tab', { name: 'Create account' }).click();
    const email = suite.h.uniqueEmail('owner');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    // The server's own schema, run in the browser: no request was needed for this message.
    await expect(page.getByText('must be a valid email').isVisible()).resolves.toBe(true);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('No projects yet').waitFor();
    await shot(page, '02-projects-empty');

    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByLabel('Project name').fill('Shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    const keys = page.getByTestId('new-keys');
    await keys.waitFor();
    await shot(page, '03-new-project-keys');
    await expectAccessible(page, 'new project keys');
    await page.getByRole('button', { name: 'Copy publishable client key: copy to clipboard' }).click();
    const publishable = await page.evaluate(() => navigator.clipboard.readText());
    expect(publishable).toBe(await page.getByLabel('Publishable client key', { exact: true }).textContent());
    await page.getByRole('button', { name: 'Copy secret server key: copy to clipboard' }).click();
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(await page.getByLabel('SDK snippet').textContent()).toContain('new ClientApp({');

    const projectId = (await page.getByLabel('.env file').textContent())?.match(/LATCH_PROJECT_ID=(\S+)/)?.[1] ?? null;
    expect(projectId).toBeTruthy();
    // The copied keys work.
    const current = await suite.h.get('/projects/current', {
      'x-latch-project-id': projectId!,
      'x-latch-access-type': 'client',
      'x-latch-publishable-client-key': publishable,
    });
    expect(current.body.display_name).toBe('Shop');
    const users = await suite.h.get('/users', { 'x-latch-project-id': projectId!, 'x-latch-access-type': 'server', 'x-latch-secret-server-key': secret });
    expect(users.status).toBe(200);

    await page.getByRole('button', { name: /open the project/ }).click();
    await page.getByRole('heading', { name: 'Shop' }).waitFor();
    await page.getByText('Sign-ups per day').waitFor();
    await shot(page, '04-overview-empty');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("keeps the owner's refresh token out of the page's reach: an HttpOnly cookie and memory, never storage", async () => {
    const owner = await suite.h.signUpOwner();
    const { context, page, errors } = await newPage();
    await signIn(page, owner.email);
    // Nothing a script can read holds a token: no readable cookie, nothing in web storage.
    const readable = await page.evaluate(() => ({ cookie: document.cookie, local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage) }));
    expect(readable).toEqual({ cookie: '', local: '{}', session: '{}' });
    const cookies = await context.cookies();
    expect(cookies.map((c) => c.name)).toEqual(['latch-console-refresh']);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/console' });
    // It is a live internal-project session's refresh token.
    const refreshed = await suite.h.post('/auth/sessions/current/refresh', {}, { ...suite.h.internalClient(), 'x-latch-refresh-token': cookies[0]!.value });
    expect(refreshed.status).toBe(200);

    // A reload keeps the owner signed in (a new access token comes from the cookie's session).
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.evaluate(() => document.cookie)).toBe('');

    // Signing out ends the session and forgets the cookie; a reload shows the sign-in page.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await context.cookies()).toEqual([]);
    expect((await suite.h.post('/auth/sessions/current/refresh', {}, { ...suite.h.internalClient(), 'x-latch-refresh-token': cookies[0]!.value })).status).toBe(
      401,
    );
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the overview charts from /internal/metrics', async () => {
    const project = await suite.h.createProject({ displayName: 'Metrics' });
    await Promise.all([suite.h.signUpUser(project), suite.h.signUpUser(project), suite.h.signUpUser(project)]);
    const { context, page, errors } = await newPage();
    // A wrong password first: the server's catalogued message, as the SDK's error class carries it.
    await page.goto(`${suite.h.url}/projects/${project.id}/overview`);
    await page.getByLabel('Email').fill(project.owner.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText(new KnownErrors.EmailPasswordMismatch().message).waitFor();
    await page.getByLabel('Password').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('img', { name: 'Sign-ups per day: 3 in the last 30 days' }).waitFor();
    expect(await page.locator('.stat-value').first().textContent()).toBe('3');
    await shot(page, '05-overview-charts');
    await expectAccessible(page, 'overview');
    // A project the owner cannot open: the error state, with the catalogued message and code.
    await page.goto(`${suite.h.url}/projects/00000000-0000-4000-8000-000000000000/overview`);
    await page.getByText('Could not open this project').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/PROJECT_NOT_FOUND|CURRENT_PROJECT_NOT_FOUND|ADMIN_ACCESS_TOKEN/);
    await shot(page, '05b-project-error');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates a user, finds them by search, edits name and metadata (JSON checked), impersonates, revokes a session, deletes', async () => {
    const { project, context, page, errors } = await ownerOn('users');
    await page.getByText('No users yet').waitFor();
    // Someone signs up while the owner looks at the empty table: Refresh shows them.
    const other = await suite.h.signUpUser(project, { email: suite.h.uniqueEmail('someone-else') });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('table', { name: 'Users' }).getByRole('link', { name: other.email }).waitFor();
    await page.getByRole('button', { name: 'Create user' }).first().click();
    const email = suite.h.uniqueEmail('ada');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Display name').fill('Ada');
    await page.getByLabel('Password (optional)').fill('correct-horse-battery');
    await page.getByRole('dialog').getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { name: 'Ada', exact: true }).waitFor();
    const userId = page.url().split('/').pop()!;

    await page.getByLabel('Display name').fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();

    await page.getByLabel('Server metadata').fill('{"plan": "pro",');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByText(/Not valid JSON/).waitFor();
    await page.getByLabel('Server metadata').fill('{"plan": "pro"}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByRole('region', { name: 'Metadata' }).getByText('Saved.').waitFor();
    const saved = await suite.h.get(`/users/${userId}`, project.server());
    expect(saved.body).toMatchObject({ display_name: 'Ada Lovelace', server_metadata: { plan: 'pro' }, primary_email: email });

    // An admin-set password: the server's length rule first, then one that works.
    await page.getByLabel('Set a new password').fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').getByText(new KnownErrors.PasswordTooShort(8).message).waitFor();
    await page.getByLabel('Set a new password').fill('a-new-password-1');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password set.').waitFor();
    expect((await suite.h.post('/auth/password/sign-in', { email, password: 'a-new-password-1' }, project.client())).status).toBe(200);

    // Impersonation: after a confirmation, a new tab opens the app's /handler/impersonate with a
    // single-use code (no token shown in the console). The project has no trusted domain here, so
    // the handler is typed; the code then starts an impersonation session, once.
    await page.getByRole('button', { name: 'Impersonate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Impersonate this user?' });
    await dialog.getByLabel("Your app's handler").fill(`${suite.h.url}/handler`);
    const popup = context.waitForEvent('page');
    await dialog.getByRole('button', { name: 'Open as this user' }).click();
    const tab = await popup;
    await tab.waitForURL(/\/handler\/impersonate\?code=/);
    const code = new URL(tab.url()).searchParams.get('code')!;
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    await tab.close();
    await dialog.getByRole('status').getByText(`Opened ${suite.h.url}/handler/impersonate in a new tab.`).waitFor();
    expect(await page.getByText(/access token|refresh token/i).count()).toBe(0);
    const impersonated = await suite.h.post('/auth/impersonation/sign-in', { code }, project.client());
    expect(impersonated.status).toBe(200);
    expect(impersonated.body.user_id).toBe(userId);
    expect((await suite.h.post('/auth/impersonation/sign-in', { code }, project.client())).body.code).toBe('ALREADY_USED');
    await dialog.getByRole('button', { name: 'Done' }).click();
    // The impersonation session in the user's list, then revoke a session from the console.
    await page.reload();
    await page.getByRole('table', { name: 'Sessions' }).waitFor();
    expect(await page.getByText('impersonation', { exact: true }).count()).toBe(1);
    await shot(page, '06-user-detail');
    await expectAccessible(page, 'user detail');
    expect(await page.getByRole('table', { name: 'Sessions' }).getByRole('row').count()).toBe(3);
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Sessions' }).getByRole('row').count()).toBe(2);
    const sessions = await suite.h.get(`/auth/sessions?user_id=${userId}`, project.server());
    expect(sessions.body.items).toHaveLength(1);

    // Search the table.
    await page.getByRole('link', { name: '← Users' }).click();
    await page.getByLabel('Search users').fill('ada-');
    await expect.poll(() => page.getByRole('table', { name: 'Users' }).getByRole('row').count()).toBe(2);
    expect(await page.getByRole('table', { name: 'Users' }).textContent()).not.toContain(other.email);
    await shot(page, '07-users-search');
    await expectAccessible(page, 'users');
    await page.getByLabel('Search users').fill('nobody-matches-this');
    await page.getByText('No users match').waitFor();

    // Project permissions: granted from the user's page.
    expect((await suite.h.post('/project-permission-definitions', { id: 'reports:export' }, project.admin())).status).toBe(201);
    await page.goto(`${suite.h.url}/projects/${project.id}/users/${userId}`);
    await page.getByRole('group', { name: 'Project permissions' }).getByLabel('reports:export').check();
    await expect
      .poll(async () => (await suite.h.get(`/project-permissions?user_id=${userId}`, project.server())).body.items.map((p: { id: string }) => p.id))
      .toEqual(['reports:export']);

    // A user API key made by the app, revoked from the console.
    expect((await suite.h.patch('/internal/projects/current', { config: { allow_user_api_keys: true } }, project.admin())).status).toBe(200);
    const key = await suite.h.post('/user-api-keys', { user_id: userId, description: 'cli' }, project.server());
    expect(key.status).toBe(201);
    await page.reload();
    const keysTable = page.getByRole('table', { name: 'User API keys' });
    await keysTable.getByText(`…${key.body.value.slice(-4)}`).waitFor();
    await keysTable.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await keysTable.getByText('revoked').waitFor();
    expect((await suite.h.get(`/user-api-keys/${key.body.id}`, project.server())).body.manually_revoked_at_millis).toEqual(expect.any(Number));

    // Delete, with confirmation.
    await page.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('table', { name: 'Users' }).waitFor();
    expect((await suite.h.get(`/users/${userId}`, project.server())).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('pages through users with keyset cursors, newest first (Next / Previous), no total count needed', async () => {
    const { project, context, page, errors } = await ownerOn('users');
    const db = suite.h.latch.deps.db;
    const tenancy = await db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).executeTakeFirstOrThrow();
    // 120 users straight into the table: Bulk 0001 signed up last, so it is first (newest first).
    await sql`insert into users (tenancy_id, id, display_name, primary_email, signed_up_at)
      select ${tenancy.id}::uuid, gen_random_uuid(), 'Bulk ' || lpad(i::text, 4, '0'), 'bulk-' || i || '@example.com', now() - make_interval(secs => i)
      from generate_series(1, 120) as i`.execute(db);
    await page.reload();
    const table = page.getByRole('table', { name: 'Users' });
    const firstName = () => table.getByRole('row').nth(1).getByRole('link').textContent();
    await expect.poll(firstName).toBe('Bulk 0001');
    expect(await table.getByRole('row').count()).toBe(51);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(firstName).toBe('Bulk 0051');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(firstName).toBe('Bulk 0101');
    expect(await table.getByRole('row').count()).toBe(21);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(firstName).toBe('Bulk 0051');
    await page.getByLabel('Order').selectOption('oldest');
    await expect.poll(firstName).toBe('Bulk 0120');
    await page.getByLabel('Order').selectOption('newest');
    await page.getByLabel('Search users').fill('bulk-77@');
    await expect.poll(firstName).toBe('Bulk 0077');
    expect(await page.getByText('Page 1').count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates nested permissions (never offering a cycle), a team, a member and their permission', async () => {
    const { project, context, page, errors } = await ownerOn('permissions');
    const member = await suite.h.signUpUser(project);
    await page.getByRole('button', { name: 'New team permission' }).click();
    await page.getByLabel('Permission ID').fill('Docs Read');
    await page.getByRole('button', { name: 'Create permission' }).click();
    await page.getByText('Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed').waitFor();
    await page.getByLabel('Permission ID').fill('docs:read');
    await page.getByRole('button', { name: 'Create permission' }).click();
    await page.getByRole('cell', { name: 'docs:read', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New team permission' }).click();
    await page.getByLabel('Permission ID').fill('editor');
    await page.getByRole('dialog').getByLabel('docs:read').check();
    await page.getByRole('button', { name: 'Create permission' }).click();
    await page.getByRole('cell', { name: 'editor', exact: true }).waitFor();
    // docs:read is inside editor, so editor is not offered inside docs:read.
    await page
      .getByRole('row', { name: /^docs:read/ })
      .getByRole('button', { name: 'Edit' })
      .click();
    expect(await page.getByRole('dialog').getByLabel('editor', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('dialog').getByLabel('$read_members').count()).toBe(1);
    await shot(page, '08-permission-editor');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    // Defaults.
    await page.getByRole('group', { name: 'Team members get' }).getByLabel('docs:read').check();
    await expect.poll(async () => (await config(project)).team_member_default_permissions).toEqual([{ id: 'docs:read' }]);

    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByText('No teams yet').waitFor();
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByLabel('Team name').fill('Writers');
    await page.getByRole('dialog').getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('heading', { name: 'Writers' }).waitFor();
    await page.getByLabel('Team name').fill('Authors');
    await page.getByRole('button', { name: 'Save team' }).click();
    await page.getByRole('heading', { name: 'Authors' }).waitFor();
    await page.getByLabel('Server metadata').fill('{"tier": "gold"}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByRole('region', { name: 'Metadata' }).getByText('Saved.').waitFor();
    const teamId = page.url().split('/').pop()!;
    expect((await suite.h.get(`/teams/${teamId}`, project.server())).body).toMatchObject({ display_name: 'Authors', server_metadata: { tier: 'gold' } });
    await page.getByLabel('Add a user by email').fill(member.email);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('table', { name: 'Members' }).waitFor();
    await page.getByRole('button', { name: 'Permissions' }).click();
    await page.getByRole('dialog').getByLabel('editor').check();
    await expect
      .poll(async () =>
        (await suite.h.get(`/team-permissions?user_id=${member.userId}&recursive=false`, project.server())).body.items.map((p: { id: string }) => p.id).sort(),
      )
      .toEqual(['docs:read', 'editor']);
    await shot(page, '09-team-member-permissions');
    await expectAccessible(page, 'team');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('changes auth methods and domains, and shows the production-mode problems with their fix', async () => {
    const { project, context, page, errors } = await ownerOn('auth-methods');
    expect((await config(project)).magic_link_enabled).toBe(false);
    await page.getByRole('switch', { name: 'Magic link and email code' }).check();
    await expect.poll(async () => (await config(project)).magic_link_enabled).toBe(true);
    await page.getByRole('switch', { name: 'Users can create teams' }).check();
    await expect.poll(async () => (await config(project)).client_team_creation_enabled).toBe(true);
    await page.getByRole('button', { name: 'Configure GitHub' }).click();
    await page.getByLabel('My own OAuth app').check();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByText('standard providers need client_id and client_secret').waitFor();
    await page.getByLabel('Client ID').fill('gh-client');
    await page.getByLabel('Client secret').fill('gh-secret');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByText('Own app (gh-client)').waitFor();
    await page.getByLabel(/When an OAuth sign-in/).selectOption('raise_error');
    await expect.poll(async () => (await config(project)).oauth_account_merge_strategy).toBe('raise_error');
    await shot(page, '10-auth-methods');
    await expectAccessible(page, 'auth methods');
    const github = (await config(project)).oauth_providers.find((p: { id: string }) => p.id === 'github');
    expect(github).toMatchObject({ enabled: true, type: 'standard', client_id: 'gh-client', has_client_secret: true });
    expect(JSON.stringify(await config(project))).not.toContain('gh-secret');
    // Saving another provider sends GitHub back without its (write-only) secret: the server keeps it.
    const storedSecret = async () =>
      (
        (await suite.h.latch.deps.db.selectFrom('projects').select('config').where('id', '=', project.id).executeTakeFirstOrThrow()).config as {
          oauth_providers: { id: string; client_secret: string | null }[];
        }
      ).oauth_providers.find((p) => p.id === 'github')?.client_secret;
    const before = await storedSecret();
    expect(before).toMatch(/^v1\./);
    await page.getByRole('button', { name: 'Configure Google' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await config(project)).oauth_providers.map((p: { id: string }) => p.id).sort()).toEqual(['github', 'google']);
    expect(await storedSecret()).toBe(before);

    // Production mode cannot be switched on while its problems stand: the switch is disabled and
    // the problems are listed with their fix links.
    await page.getByRole('link', { name: 'Project settings' }).click();
    const productionSwitch = page.getByRole('switch', { name: 'Production mode' });
    await expect.poll(() => productionSwitch.isDisabled()).toBe(true);
    await page.getByRole('list', { name: 'Production mode problems to fix' }).getByText('Localhost is not allowed in production mode').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('list', { name: 'Production mode problems' }).getByText('Localhost is not allowed in production mode').waitFor();
    await page.getByLabel('Domain', { exact: true }).fill('not a url');
    await page.getByRole('button', { name: 'Add domain' }).click();
    expect(await page.locator('.field-error').count()).toBeGreaterThan(0);
    await page.getByLabel('Domain', { exact: true }).fill('https://app.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('cell', { name: 'https://app.example.com' }).waitFor();
    await page.getByRole('switch', { name: 'Allow localhost' }).uncheck();
    await page.getByText('No problems: this project is ready for production mode.').waitFor();
    await shot(page, '11-domains');
    await expectAccessible(page, 'domains');
    expect(await config(project)).toMatchObject({ allow_localhost: false, domains: [{ domain: 'https://app.example.com', handler_path: '/handler' }] });
    // Problems fixed: now it switches on.
    await page.getByRole('navigation').getByRole('link', { name: 'Project settings' }).click();
    await page.getByRole('switch', { name: 'Production mode' }).check();
    await expect.poll(async () => (await suite.h.get('/internal/projects/current', project.admin())).body.is_production_mode).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sends a test email to the SMTP sink, shows the SMTP error for a bad login, and renders outbox emails', async () => {
    const { project, context, page, errors } = await ownerOn('emails', { config: { magic_link_enabled: true } });
    // An email to the outbox: with no SMTP server configured it stays there (the local inbox).
    const to = suite.h.uniqueEmail('reader');
    expect(
      (await suite.h.post('/auth/otp/send-sign-in-code', { email: to, callback_url: 'http://localhost:3000/handler/magic-link-callback' }, project.client()))
        .status,
    ).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('table', { name: 'Sent emails' }).getByText(to).waitFor();

    await page.getByLabel('My own SMTP server').check();
    await page.getByLabel('SMTP host').fill('127.0.0.1');
    await page.getByLabel('Port').fill(String(sink.port));
    await page.getByLabel('Username').fill(SMTP_USER);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByLabel('Sender name').fill('Shop');
    await page.getByLabel('Sender email').fill('noreply@shop.test');
    const recipient = suite.h.uniqueEmail('test-recipient');
    await page.getByLabel('Send a test email to').fill(recipient);
    await page.getByRole('button', { name: 'Send test email' }).click();
    await page.getByText('The SMTP server refused the test email').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/535|Authentication/);
    await shot(page, '12-smtp-error');
    await expectAccessible(page, 'emails');

    await page.getByLabel('Password', { exact: true }).fill(SMTP_PASSWORD);
    await page.getByRole('button', { name: 'Send test email' }).click();
    await page.getByText('Test email sent.').waitFor();
    const received = await sink.waitForTo(recipient);
    expect(received.from?.address).toBe('noreply@shop.test');
    await page.getByRole('button', { name: 'Save email server' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await config(project)).email_config).toMatchObject({ type: 'standard', host: '127.0.0.1', port: sink.port, has_password: true });
    expect(JSON.stringify(await config(project))).not.toContain(SMTP_PASSWORD);
    // The password is write-only: after a reload the field is empty, and saving again keeps it
    // (the invitation below only reaches the sink with the right password).
    await page.reload();
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    await page.getByText('A password is stored; leave this empty to keep it.').waitFor();
    await page.getByLabel('Sender name').fill('Shop (renamed)');
    await page.getByRole('button', { name: 'Save email server' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await config(project)).email_config).toMatchObject({ sender_name: 'Shop (renamed)', has_password: true });

    // A sign-in invitation, now through the project's own (saved) server: it reaches the sink.
    const invited = suite.h.uniqueEmail('invited');
    await page.getByLabel('Email address').fill(invited);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${invited}.`).waitFor();
    const invitation = await sink.waitForTo(invited);
    expect(invitation.link).toContain('http://localhost:3000/handler/sign-in');

    await page
      .getByRole('table', { name: 'Sent emails' })
      .getByRole('link', { name: /sign-in code/ })
      .first()
      .click();
    const frame = page.frameLocator('iframe.email-frame');
    await frame.locator('body').waitFor();
    expect(await frame.locator('body').textContent()).toMatch(/sign in|Sign in/i);
    await shot(page, '13-email-rendered');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates and revokes project keys, renames and deletes the project', async () => {
    const { project, context, page, errors } = await ownerOn('api-keys');
    await page.getByRole('table', { name: 'Project keys' }).waitFor();
    await page.getByRole('button', { name: 'Create keys' }).click();
    await page.getByLabel('Description').fill('ci');
    await page.getByRole('switch', { name: 'Super secret admin key' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    // The keys appear once the request is answered (the create dialog's switch has the same label).
    const adminKey = await page.getByTestId('new-keys').getByLabel('Super secret admin key', { exact: true }).textContent();
    expect(await adminKeyStatus(project, adminKey!)).toBe(200);
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('row', { name: /^ci/ }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('row', { name: /^ci/ }).getByText('revoked').waitFor();
    expect(await adminKeyStatus(project, adminKey!)).toBe(401);
    await shot(page, '14-api-keys');
    await expectAccessible(page, 'api keys');

    await page.getByRole('link', { name: 'Project settings' }).click();
    await page.getByLabel('Project name').fill('');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('must be at least 1 characters').waitFor();
    await page.getByLabel('Project name').fill('Renamed');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    // Transfer to a new owner team (a team of the internal project the owner creates here).
    await page.getByLabel('Create an owner team').fill('Agency');
    await page.getByRole('button', { name: 'Create team' }).click();
    await expect.poll(() => page.getByLabel('New owner team').inputValue()).not.toBe('');
    await page.getByRole('button', { name: 'Transfer', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Transfer' }).click();
    await page.getByText('Transferred.').waitFor();
    const teams = await suite.h.get('/teams?user_id=me', suite.h.internalClient(project.owner.accessToken));
    const agency = teams.body.items.find((team: { display_name: string }) => team.display_name === 'Agency');
    expect((await suite.h.get('/internal/projects/current', project.admin())).body.owner_team_id).toBe(agency.id);
    await shot(page, '15-settings');

    await page.getByRole('button', { name: 'Delete project' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/Type the project name/)
      .fill('Renamed');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect((await suite.h.get('/internal/projects/current', project.admin())).status).toBeGreaterThanOrEqual(400);
    expect(errors).toEqual([]);
    await context.close();
  });

  // Payments (Stripe not connected, the catalogue's inline money messages, test-mode purchases in the
  // transactions, customer lookup, revenue) are admin-web/payments.console.test.ts.

  it('works in dark mode (system preference): readable, accessible', async () => {
    const project = await suite.h.createProject({ displayName: 'Dark' });
    await suite.h.signUpUser(project);
    const { context, page } = await suite.newPage({ context: { colorScheme: 'dark' } });
    await signIn(page, project.owner.email, `/projects/${project.id}/overview`);
    await page.getByRole('img', { name: /Sign-ups per day/ }).waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(background).toBe('rgb(15, 17, 21)');
    await shot(page, '16-dark-overview');
    await expectAccessible(page, 'dark overview');
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('table', { name: 'Users' }).waitFor();
    await shot(page, '17-dark-users');
    await expectAccessible(page, 'dark users');
    await context.close();
  });
});
