import { describe, expect, it } from 'vitest';
import { useHarness } from '../../../test/harness.js';
import { expectKnownError, expectStatus } from '../../../test/team-fixtures.js';
import { BUILT_IN_TEMPLATES, DEFAULT_DARK_THEME_ID, DEFAULT_LIGHT_THEME_ID } from './default-sources.js';

/** `/internal/email-themes`, `/internal/email-templates`, `/internal/email-drafts` over HTTP: CRUD and tenant isolation. */

const h = useHarness();

const ownTemplate = `import { Text } from '@react-email/components';
import { Subject } from '@latch/emails';
export const variablesSchema = { name: 'string' };
export function EmailTemplate({ variables }) {
  return <><Subject value="Hi" /><Text>Hello {variables.name}</Text></>;
}`;

describe('email themes', () => {
  it('lists the built-in themes, creates one, patches its source (refusing a broken one with its line), and copies a built-in on patch', async () => {
    const project = await h.createProject();
    const list = await h.get('/internal/email-themes', project.admin());
    expectStatus(list, 200);
    expect(list.body.items.map((t: { display_name: string }) => t.display_name)).toEqual(['Default Light', 'Default Dark']);
    expect(list.body.items[0]).toMatchObject({ id: DEFAULT_LIGHT_THEME_ID, is_built_in: true, is_project_default: true });

    const created = await h.post('/internal/email-themes', { display_name: 'Brand' }, project.admin());
    expectStatus(created, 201);
    expect(created.body).toMatchObject({ display_name: 'Brand', is_built_in: false, is_project_default: false });
    const id = created.body.id as string;

    const source = created.body.tsx_source.replace('If you did not expect this email', 'Sent by Brand');
    const patched = await h.patch(`/internal/email-themes/${id}`, { tsx_source: source }, project.admin());
    expectStatus(patched, 200);
    expect((await h.get(`/internal/email-themes/${id}`, project.admin())).body.tsx_source).toContain('Sent by Brand');

    const broken = await h.patch(`/internal/email-themes/${id}`, { tsx_source: 'export function EmailTheme() {\n  const = 5;\n}' }, project.admin());
    expectKnownError(broken, 400, 'EMAIL_RENDERING_ERROR');
    expect(broken.body.details.line).toBe(2);

    const dark = await h.patch(`/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, { display_name: 'Night' }, project.admin());
    expectStatus(dark, 200);
    expect(dark.body).toMatchObject({ id: DEFAULT_DARK_THEME_ID, display_name: 'Night', is_built_in: true });
    // Another project still has the original.
    const other = await h.createProject();
    expect((await h.get(`/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, other.admin())).body.display_name).toBe('Default Dark');

    // The project's email_theme marks the default.
    expectStatus(await h.patch('/internal/projects/current', { config: { email_theme: id } }, project.admin()), 200);
    const after = await h.get('/internal/email-themes', project.admin());
    expect(after.body.items.find((t: { id: string }) => t.id === id).is_project_default).toBe(true);

    expectKnownError(await h.get('/internal/email-themes/00000000-0000-4000-8000-000000000000', project.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectStatus(await h.get('/internal/email-themes', project.server()), 401);
  });
});

describe('email templates', () => {
  it('lists every built-in email with its default source; patching one stores the edit, deleting it restores the default', async () => {
    const project = await h.createProject();
    const list = await h.get('/internal/email-templates', project.admin());
    expectStatus(list, 200);
    expect(list.body.items.map((t: { type: string }) => t.type)).toEqual([
      'email_verification',
      'password_reset',
      'magic_link',
      'team_invitation',
      'sign_in_invitation',
    ]);
    expect(list.body.items.every((t: { is_default: boolean; theme_id: unknown }) => t.is_default && t.theme_id === null)).toBe(true);

    const id = BUILT_IN_TEMPLATES.email_verification.id;
    const edited = BUILT_IN_TEMPLATES.email_verification.tsxSource.replace('Verify email', 'Please confirm your address');
    const patched = await h.patch(`/internal/email-templates/${id}`, { tsx_source: edited, theme_id: DEFAULT_DARK_THEME_ID }, project.admin());
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({ type: 'email_verification', is_default: false, theme_id: DEFAULT_DARK_THEME_ID });
    expect((await h.get(`/internal/email-templates/${id}`, project.admin())).body.tsx_source).toContain('Please confirm your address');

    expectStatus(await h.del(`/internal/email-templates/${id}`, project.admin()), 200);
    expect((await h.get(`/internal/email-templates/${id}`, project.admin())).body).toMatchObject({ is_default: true, theme_id: null });
  });

  it('creates, patches (theme false = none) and deletes an own template; a built-in type is EMAIL_TEMPLATE_ALREADY_EXISTS', async () => {
    const project = await h.createProject();
    const created = await h.post('/internal/email-templates', { display_name: 'Newsletter', tsx_source: ownTemplate }, project.admin());
    expectStatus(created, 201);
    expect(created.body).toMatchObject({ type: null, display_name: 'Newsletter', theme_id: null, is_default: false });
    const id = created.body.id as string;
    const patched = await h.patch(`/internal/email-templates/${id}`, { theme_id: false }, project.admin());
    expect(patched.body.theme_id).toBe(false);

    expectKnownError(
      await h.post('/internal/email-templates', { display_name: 'Mine', type: 'password_reset' }, project.admin()),
      409,
      'EMAIL_TEMPLATE_ALREADY_EXISTS',
    );
    expectStatus(await h.post('/internal/email-templates', { display_name: 'Receipt', type: 'receipt' }, project.admin()), 201);
    expectKnownError(
      await h.post('/internal/email-templates', { display_name: 'Receipt 2', type: 'receipt' }, project.admin()),
      409,
      'EMAIL_TEMPLATE_ALREADY_EXISTS',
    );

    const broken = await h.post(
      '/internal/email-templates',
      { display_name: 'Broken', tsx_source: "import x from 'fs';\nexport function EmailTemplate() { return x; }" },
      project.admin(),
    );
    expectKnownError(broken, 400, 'EMAIL_RENDERING_ERROR');

    // render-email by id: the template with its variables, through its theme (none here).
    const rendered = await h.post('/emails/render-email', { template_id: id, variables: { name: 'Grace' } }, project.admin());
    expectStatus(rendered, 200);
    expect(rendered.body).toMatchObject({ subject: 'Hi' });
    expect(rendered.body.text).toContain('Hello Grace');
    const unknown = await h.post('/emails/render-email', { template_id: id, variables: { name: 'Grace', extra: 1 } }, project.admin());
    expectKnownError(unknown, 400, 'EMAIL_RENDERING_ERROR');
    expect(unknown.body.error).toContain('Unknown variable: extra');

    expectStatus(await h.del(`/internal/email-templates/${id}`, project.admin()), 200);
    expectKnownError(await h.del(`/internal/email-templates/${id}`, project.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
  });
});

describe('email drafts', () => {
  it('creates, reads, patches, renders and deletes drafts', async () => {
    const project = await h.createProject();
    const created = await h.post(
      '/internal/email-drafts',
      { display_name: 'Launch', tsx_source: ownTemplate, theme_id: DEFAULT_LIGHT_THEME_ID },
      project.admin(),
    );
    expectStatus(created, 201);
    expect(created.body).toMatchObject({ display_name: 'Launch', theme_id: DEFAULT_LIGHT_THEME_ID, sent_at_millis: null });
    const id = created.body.id as string;
    expect((await h.get('/internal/email-drafts', project.admin())).body.items.map((d: { id: string }) => d.id)).toEqual([id]);
    const patched = await h.patch(`/internal/email-drafts/${id}`, { display_name: 'Launch day', theme_id: null }, project.admin());
    expect(patched.body).toMatchObject({ display_name: 'Launch day', theme_id: null });
    const rendered = await h.post('/emails/render-email', { draft_id: id, variables: { name: 'Ada' } }, project.admin());
    expectStatus(rendered, 200);
    // Through the project's theme (the built-in light one).
    expect(rendered.body.html).toContain('#ffffff');
    expectStatus(await h.del(`/internal/email-drafts/${id}`, project.admin()), 200);
    expectKnownError(await h.get(`/internal/email-drafts/${id}`, project.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
  });
});

describe('tenant isolation', () => {
  it("project B can neither read nor change project A's themes, templates or drafts", async () => {
    const a = await h.createProject();
    const b = await h.createProject();
    const theme = (await h.post('/internal/email-themes', { display_name: 'A theme' }, a.admin())).body.id as string;
    const template = (await h.post('/internal/email-templates', { display_name: 'A template', tsx_source: ownTemplate }, a.admin())).body.id as string;
    const draft = (await h.post('/internal/email-drafts', { display_name: 'A draft', tsx_source: ownTemplate }, a.admin())).body.id as string;
    const verification = BUILT_IN_TEMPLATES.email_verification.id;
    await h.patch(`/internal/email-templates/${verification}`, { display_name: 'A verification' }, a.admin());

    expectKnownError(await h.get(`/internal/email-themes/${theme}`, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.patch(`/internal/email-themes/${theme}`, { display_name: 'B' }, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.get(`/internal/email-templates/${template}`, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.patch(`/internal/email-templates/${template}`, { display_name: 'B' }, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.del(`/internal/email-templates/${template}`, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.get(`/internal/email-drafts/${draft}`, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.patch(`/internal/email-drafts/${draft}`, { display_name: 'B' }, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.del(`/internal/email-drafts/${draft}`, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.post('/emails/render-email', { template_id: template }, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.post('/emails/render-email', { draft_id: draft }, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expectKnownError(await h.post('/emails/render-email', { theme_id: theme }, b.admin()), 404, 'EMAIL_CONTENT_NOT_FOUND');
    expect((await h.get('/internal/email-themes', b.admin())).body.items).toHaveLength(2);
    expect((await h.get('/internal/email-drafts', b.admin())).body.items).toHaveLength(0);
    expect((await h.get(`/internal/email-templates/${verification}`, b.admin())).body.display_name).toBe('Email verification');
    // A's own objects are untouched.
    expect((await h.get(`/internal/email-drafts/${draft}`, a.admin())).body.display_name).toBe('A draft');
  });
});
