import { executionAsyncId } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { useHarness } from './harness.js';
import { codeMailedTo } from './outbox.js';
import { expectStatus } from './team-fixtures.js';

/**
 * On Node 20, one AsyncLocalStorage that has ever run (or any async_hooks createHook) turns on the
 * promise hooks for the whole process, and from then on every promise of every request pays for
 * them: a refresh took 1.78 M instead of 1.11 M instructions (bench/instructions.ts). The server
 * keeps them off (contract/layering.test.ts forbids async_hooks in its source); this test checks
 * that the flows that once turned them on (a password sign-up's hashing turn, the sign-in seam's
 * held transactions) and the libraries it runs in-process (React's server renderer for the
 * built-in emails) do not, with the server running in this process.
 *
 * The probe: with the hooks on, a promise continuation runs under its promise's async id; with
 * them off, under 0.
 */
async function promiseHooksOn(): Promise<boolean> {
  await null;
  return executionAsyncId() !== 0;
}

const CALLBACK = 'http://localhost:3000/handler/magic-link-callback';
const h = useHarness();

describe('async_hooks promise hooks', () => {
  it('stay off through password sign-up, sign-in and change, anonymous sign-up, a magic-link email sent and used, and a sandboxed render', async () => {
    // The probe must read false in a clean process, or it proves nothing below.
    expect(await promiseHooksOn()).toBe(false);

    const owner = await h.signUpOwner();
    const project = await h.createProject({ owner, config: { magic_link_enabled: true } });
    const user = await h.signUpUser(project);
    expectStatus(await h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client()), 200);
    expectStatus(
      await h.post(
        '/auth/password/update',
        { old_password: user.password, new_password: 'another-long-password' },
        { ...project.client(), 'x-latch-access-token': user.accessToken },
      ),
      200,
    );
    expectStatus(await h.post('/auth/anonymous/sign-up', {}, project.client()), 200);
    // A built-in email rendered on the main thread (the worker sends it), then its code used.
    const email = h.uniqueEmail('hooks');
    const code = await codeMailedTo(h, project, email, () => h.post('/auth/otp/send-sign-in-code', { email, callback_url: CALLBACK }, project.client()));
    expectStatus(await h.post('/auth/otp/sign-in', { code }, project.client()), 200);
    // Owner TSX rendered in the sandbox.
    expectStatus(
      await h.post('/emails/render-email', { template_tsx_source: 'export function EmailTemplate() { return <p>probe</p>; }' }, project.admin()),
      200,
    );

    expect(await promiseHooksOn()).toBe(false);
  });
});
