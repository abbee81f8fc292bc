import { describe, expect, it } from 'vitest';
import { MARKETING_CATEGORY_ID, TRANSACTIONAL_CATEGORY_ID } from '../../../contract/schemas/notifications.js';
import { type ProjectFixture, useHarness } from '../../test/harness.js';
import { categoryDecision } from './delivery-rules.js';

const h = useHarness();

const prefsPath = (userId: string) => `/emails/notification-preference/${userId}`;
const prefPath = (userId: string, categoryId: string) => `/emails/notification-preference/${userId}/${categoryId}`;

async function tenancyOf(project: ProjectFixture) {
  const row = await h.latch.deps.db
    .selectFrom('tenancies')
    .select(['id', 'project_id', 'branch_id'])
    .where('project_id', '=', project.id)
    .executeTakeFirstOrThrow();
  return { id: row.id, projectId: row.project_id, branchId: row.branch_id };
}

async function setUp() {
  const project = await h.createProject({ displayName: 'Acme <Newsletters>' });
  const [u1, u2] = [await h.signUpUser(project), await h.signUpUser(project)];
  return { project, u1, u2, tenancy: await tenancyOf(project) };
}

/** The enabled flag of one category, as the server key reads it. */
async function enabledOf(project: ProjectFixture, userId: string, categoryId: string): Promise<boolean> {
  const res = await h.get(prefsPath(userId), project.server());
  expect(res.status).toBe(200);
  return res.body.items.find((c: { notification_category_id: string }) => c.notification_category_id === categoryId).enabled;
}

function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token')!;
}

describe('notification preferences', () => {
  it('lists the two built-in categories for me, both on by default', async () => {
    const { project, u1 } = await setUp();
    const res = await h.get(prefsPath('me'), project.client(u1.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        { notification_category_id: TRANSACTIONAL_CATEGORY_ID, notification_category_name: 'Transactional', enabled: true, can_disable: false },
        { notification_category_id: MARKETING_CATEGORY_ID, notification_category_name: 'Marketing', enabled: true, can_disable: true },
      ],
      is_paginated: false,
    });
  });

  it('a client turns Marketing off and on for itself; Transactional cannot be disabled', async () => {
    const { project, u1 } = await setUp();
    const off = await h.patch(prefPath('me', MARKETING_CATEGORY_ID), { enabled: false }, project.client(u1.accessToken));
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ notification_category_name: 'Marketing', enabled: false, can_disable: true });
    expect(await enabledOf(project, u1.userId, MARKETING_CATEGORY_ID)).toBe(false);
    const on = await h.patch(prefPath(u1.userId, MARKETING_CATEGORY_ID), { enabled: true }, project.client(u1.accessToken));
    expect(on.body.enabled).toBe(true);

    const refused = await h.patch(prefPath('me', TRANSACTIONAL_CATEGORY_ID), { enabled: false }, project.client(u1.accessToken));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED');
    expect(refused.headers.get('x-latch-known-error')).toBe('NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED');
    const unknown = await h.patch(prefPath('me', '0b7a3f0e-1111-4222-8333-444455556666'), { enabled: false }, project.client(u1.accessToken));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOTIFICATION_CATEGORY_NOT_FOUND');
  });

  it('me rules: a client cannot read or change another user; the server key can; me without a user is refused', async () => {
    const { project, u1, u2 } = await setUp();
    const read = await h.get(prefsPath(u2.userId), project.client(u1.accessToken));
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('USER_NOT_FOUND');
    const write = await h.patch(prefPath(u2.userId, MARKETING_CATEGORY_ID), { enabled: false }, project.client(u1.accessToken));
    expect(write.body.code).toBe('USER_NOT_FOUND');
    expect(await enabledOf(project, u2.userId, MARKETING_CATEGORY_ID)).toBe(true);

    const byServer = await h.patch(prefPath(u2.userId, MARKETING_CATEGORY_ID), { enabled: false }, project.server());
    expect(byServer.status).toBe(200);
    expect(await enabledOf(project, u2.userId, MARKETING_CATEGORY_ID)).toBe(false);
    const byAdmin = await h.get(prefsPath(u2.userId), project.admin());
    expect(byAdmin.status).toBe(200);

    expect((await h.get(prefsPath('me'), project.server())).body.code).toBe('CANNOT_GET_OWN_USER_WITHOUT_USER');
    expect((await h.get(prefsPath('me'), project.client())).status).toBe(400);
    const missing = await h.get(prefsPath('0b7a3f0e-1111-4222-8333-444455556666'), project.server());
    expect(missing.body.code).toBe('USER_NOT_FOUND');
  });

  it("cross-tenant: B's server key can neither read nor change A's user's preferences", async () => {
    const a = await setUp();
    const b = await h.createProject();
    const read = await h.get(prefsPath(a.u1.userId), b.server());
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('USER_NOT_FOUND');
    const write = await h.patch(prefPath(a.u1.userId, MARKETING_CATEGORY_ID), { enabled: false }, b.server());
    expect(write.body.code).toBe('USER_NOT_FOUND');
    expect(await enabledOf(a.project, a.u1.userId, MARKETING_CATEGORY_ID)).toBe(true);
    const stored = await h.latch.deps.db.selectFrom('notification_preferences').select('tenancy_id').where('user_id', '=', a.u1.userId).execute();
    expect(stored).toEqual([]);
  });
});

describe('owner categories', () => {
  it('an owner adds a category users then see; names are unique without case; built-ins cannot be deleted', async () => {
    const { project, u1 } = await setUp();
    const created = await h.post('/internal/notification-categories', { name: 'Product updates' }, project.admin());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Product updates', can_disable: true, default_enabled: true, built_in: false });
    const list = await h.get('/internal/notification-categories', project.admin());
    expect(list.body.items.map((c: { name: string }) => c.name)).toEqual(['Transactional', 'Marketing', 'Product updates']);
    expect((await h.get(prefsPath('me'), project.client(u1.accessToken))).body.items).toHaveLength(3);

    expect((await h.post('/internal/notification-categories', { name: 'product UPDATES' }, project.admin())).body.code).toBe(
      'NOTIFICATION_CATEGORY_ALREADY_EXISTS',
    );
    expect((await h.post('/internal/notification-categories', { name: 'marketing' }, project.admin())).status).toBe(409);
    expect((await h.post('/internal/notification-categories', { name: 'x' }, project.server())).status).toBe(401);
    expect((await h.del(`/internal/notification-categories/${TRANSACTIONAL_CATEGORY_ID}`, project.admin())).status).toBe(400);

    await h.patch(prefPath('me', created.body.id), { enabled: false }, project.client(u1.accessToken));
    expect((await h.del(`/internal/notification-categories/${created.body.id}`, project.admin())).status).toBe(200);
    expect((await h.get(prefsPath('me'), project.client(u1.accessToken))).body.items).toHaveLength(2);
    const left = await h.latch.deps.db.selectFrom('notification_preferences').select('category_id').where('category_id', '=', created.body.id).execute();
    expect(left).toEqual([]);
  });

  it('a category created with can_disable false behaves like Transactional', async () => {
    const { project, u1, tenancy } = await setUp();
    const created = await h.post('/internal/notification-categories', { name: 'Security alerts', can_disable: false }, project.admin());
    const refused = await h.patch(prefPath('me', created.body.id), { enabled: false }, project.client(u1.accessToken));
    expect(refused.body.code).toBe('NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED');
    expect(await categoryDecision(h.latch.deps.db, tenancy, u1.userId, 'security alerts')).toEqual({ send: true, unsubscribeUrl: null, headers: {} });
  });
});

describe('categoryDecision and one-click unsubscribe', () => {
  it('Marketing carries a signed link and RFC 8058 headers; after a one-click POST it is not sent', async () => {
    const { project, u1, tenancy } = await setUp();
    const before = await categoryDecision(h.latch.deps.db, tenancy, u1.userId, 'Marketing');
    expect(before.send).toBe(true);
    expect(before.unsubscribeUrl).toMatch(new RegExp(`^${h.url}/api/v1/emails/unsubscribe\\?token=`));
    expect(before.headers).toEqual({ 'List-Unsubscribe': `<${before.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });

    // What a mail provider does: POST the URL with the RFC 8058 body, no credentials at all.
    const res = await fetch(before.unsubscribeUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are unsubscribed');
    expect(await enabledOf(project, u1.userId, MARKETING_CATEGORY_ID)).toBe(false);
    const after = await categoryDecision(h.latch.deps.db, tenancy, u1.userId, 'marketing');
    expect(after.send).toBe(false);
  });

  it('never refuses a transactional email, even with a stored "off"; null is transactional; an unknown name is an error', async () => {
    const { u1, tenancy } = await setUp();
    await h.latch.deps.db
      .insertInto('notification_preferences')
      .values({ tenancy_id: tenancy.id, user_id: u1.userId, category_id: TRANSACTIONAL_CATEGORY_ID, enabled: false })
      .execute();
    const none = { send: true, unsubscribeUrl: null, headers: {} };
    expect(await categoryDecision(h.latch.deps.db, tenancy, u1.userId, 'Transactional')).toEqual(none);
    expect(await categoryDecision(h.latch.deps.db, tenancy, u1.userId, null)).toEqual(none);
    expect(await categoryDecision(h.latch.deps.db, tenancy, null, 'Marketing')).toEqual(none);
    await expect(categoryDecision(h.latch.deps.db, tenancy, u1.userId, 'Nope')).rejects.toMatchObject({ code: 'NOTIFICATION_CATEGORY_NOT_FOUND' });
    // Inside a transaction too (the send pipeline decides in its job's transaction).
    const inTrx = await h.latch.deps.db.transaction().execute((trx) => categoryDecision(trx, tenancy, u1.userId, 'Marketing'));
    expect(inTrx.unsubscribeUrl).not.toBeNull();
  });

  it('the GET page needs no sign-in, names the project and category, escapes them, and changes nothing', async () => {
    const { project, u1, tenancy } = await setUp();
    const { unsubscribeUrl } = await categoryDecision(h.latch.deps.db, tenancy, u1.userId, 'Marketing');
    const res = await fetch(unsubscribeUrl!);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Acme &#60;Newsletters&#62;');
    expect(html).not.toContain('<Newsletters>');
    expect(html).toContain('<strong>Marketing</strong>');
    expect(html).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await enabledOf(project, u1.userId, MARKETING_CATEGORY_ID)).toBe(true);
  });

  it('refuses tampered and foreign links; a link for project A cannot touch project B', async () => {
    const a = await setUp();
    const b = await setUp();
    const { unsubscribeUrl } = await categoryDecision(h.latch.deps.db, a.tenancy, a.u1.userId, 'Marketing');
    const token = tokenOf(unsubscribeUrl!);
    const [tenancyId, userId, categoryId, sig] = token.split('.');
    const flipped = sig!.slice(0, -2) + (sig!.at(-2) === 'A' ? 'B' : 'A') + sig!.at(-1);
    const forged = [
      [tenancyId, userId, categoryId, flipped],
      [tenancyId, a.u2.userId, categoryId, sig],
      [tenancyId, userId, TRANSACTIONAL_CATEGORY_ID, sig],
      [b.tenancy.id, userId, categoryId, sig],
      [b.tenancy.id, b.u1.userId, categoryId, sig],
      [tenancyId, userId, categoryId, `${sig}!`],
      [tenancyId, userId, categoryId],
    ].map((parts) => parts.join('.'));
    for (const bad of [...forged, '', 'garbage']) {
      const post = await h.call(`/api/v1/emails/unsubscribe?token=${encodeURIComponent(bad)}`, { form: { 'List-Unsubscribe': 'One-Click' } });
      expect(post.status, bad).toBe(400);
      expect(post.body.code, bad).toBe('UNSUBSCRIBE_LINK_INVALID');
      const page = await h.call(`/api/v1/emails/unsubscribe?token=${encodeURIComponent(bad)}`);
      expect(page.status, bad).toBe(400);
      expect(String(page.body)).toContain('This link does not work');
    }
    expect(await enabledOf(a.project, a.u2.userId, MARKETING_CATEGORY_ID)).toBe(true);
    expect(await enabledOf(b.project, b.u1.userId, MARKETING_CATEGORY_ID)).toBe(true);
    expect(await enabledOf(a.project, a.u1.userId, MARKETING_CATEGORY_ID)).toBe(true);

    // Without the RFC 8058 body the POST does nothing.
    const noBody = await h.call(`/api/v1/emails/unsubscribe?token=${token}`, { method: 'POST' });
    expect(noBody.body.code).toBe('SCHEMA_ERROR');
    expect(await enabledOf(a.project, a.u1.userId, MARKETING_CATEGORY_ID)).toBe(true);
    // The genuine link still works, and again (idempotent).
    for (let i = 0; i < 2; i++) {
      const ok = await h.call(`/api/v1/emails/unsubscribe?token=${token}`, { form: { 'List-Unsubscribe': 'One-Click' } });
      expect(ok.status).toBe(200);
    }
    expect(await enabledOf(a.project, a.u1.userId, MARKETING_CATEGORY_ID)).toBe(false);
    expect(await enabledOf(b.project, b.u1.userId, MARKETING_CATEGORY_ID)).toBe(true);
  });

  it('a link for a deleted category no longer works', async () => {
    const { project, u1, tenancy } = await setUp();
    const created = await h.post('/internal/notification-categories', { name: 'Digest' }, project.admin());
    const { unsubscribeUrl } = await categoryDecision(h.latch.deps.db, tenancy, u1.userId, 'Digest');
    await h.del(`/internal/notification-categories/${created.body.id}`, project.admin());
    const res = await h.call(unsubscribeUrl!, { form: { 'List-Unsubscribe': 'One-Click' } });
    expect(res.body.code).toBe('UNSUBSCRIBE_LINK_INVALID');
  });
});
