import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../server/test/harness.js';
import { type Passkey, ServerApp } from '../sdk/index.js';
import { openAppPage, useUiSuite } from './test/suite.js';

/**
 * Passkeys end to end in real headless Chromium with its virtual authenticator (CDP `WebAuthn.*`,
 * a CTAP2 platform authenticator with resident keys and user verification): the example app's
 * account settings add two passkeys, the sign-in page signs in with each (button and autofill),
 * and the refusals: a failed user verification, a credential of another project, an origin the
 * project does not trust, an authenticator that already holds a passkey for the account.
 * The host app runs at http://localhost:PORT (a secure context), so the RP ID is `localhost`.
 */

const SUITE = 'passkeys';
const ui = useUiSuite();

interface VirtualAuthenticator {
  cdp: CDPSession;
  id: string;
}

interface StoredCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  privateKey: string;
  userHandle: string;
  signCount: number;
}

async function addAuthenticator(page: Page, cdp?: CDPSession): Promise<VirtualAuthenticator> {
  const session = cdp ?? (await page.context().newCDPSession(page));
  if (!cdp) await session.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp: session, id: authenticatorId };
}

async function credentialsOf(auth: VirtualAuthenticator): Promise<StoredCredential[]> {
  const { credentials } = await auth.cdp.send('WebAuthn.getCredentials', { authenticatorId: auth.id });
  return credentials as StoredCredential[];
}

/** A project with passkeys on, and a browser context whose pages run the example app against it. */
async function setup(
  config: Record<string, unknown> = {},
  origin = ui.host.url,
): Promise<{ project: ProjectFixture; context: BrowserContext; page: Page; server: ServerApp }> {
  const project = await ui.h.createProject({ config: { passkey_enabled: true, ...config }, displayName: 'Acme notes' });
  return { project, ...(await openApp(project, origin)) };
}

async function openApp(project: ProjectFixture, origin = ui.host.url): Promise<{ context: BrowserContext; page: Page; server: ServerApp }> {
  const { context, page } = await openAppPage(ui, project);
  // The app's pages live at `origin`; the first navigation gives the page its origin for the CDP session.
  await page.goto(`${origin}/`);
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: ui.h.url });
  return { context, page, server };
}

const shot = (page: Page, name: string) => ui.browser.screenshot(page, SUITE, name);
const field = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

async function signInWithPassword(page: Page, origin: string, email: string, password: string) {
  await page.goto(`${origin}/handler/sign-in`);
  // The field the browser's passkey autofill attaches to (spec section 5).
  expect(await field(page, 'Email').getAttribute('autocomplete')).toBe('username webauthn');
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${origin}/`);
}

async function addPasskey(page: Page, origin: string, name: string): Promise<string> {
  if (!page.url().endsWith('/handler/account-settings')) await page.goto(`${origin}/handler/account-settings`);
  const form = page.getByRole('form', { name: 'Add a passkey' });
  await form.getByRole('textbox', { name: 'New passkey name' }).fill(name);
  await form.getByRole('button', { name: 'Add a passkey' }).click();
  const outcome = form.locator('.latch-alert');
  await outcome.waitFor();
  return outcome.innerText();
}

/** Turns email + password sign-in on or off: off, the sign-in page has no email field, so no autofill request races the button. */
async function setPasswordSignIn(project: ProjectFixture, enabled: boolean) {
  const res = await ui.h.patch('/internal/projects/current', { config: { credential_enabled: enabled } }, project.admin());
  expect(res.status).toBe(200);
}

/** The user's passkeys as the server has them now (a plain call: the SDK would answer from its cache). */
async function passkeysOf(project: ProjectFixture, userId: string): Promise<Passkey[]> {
  const res = await ui.h.get<{ items: Passkey[] }>(`/passkeys?user_id=${userId}`, project.server());
  expect(res.status).toBe(200);
  return res.body.items;
}

async function signOut(page: Page, origin: string) {
  await page.goto(`${origin}/handler/sign-out`);
  await page.waitForURL(`${origin}/`);
}

// Generous per-test time: the machine is shared, and each flow is many browser round trips.
describe('passkeys in Chromium', { timeout: 120_000 }, () => {
  it('adds two passkeys (one per authenticator) in account settings and signs in with each, by button and by autofill', async () => {
    const { project, page, context, server } = await setup();
    const user = await ui.h.signUpUser(project);
    const a = await addAuthenticator(page);
    await signInWithPassword(page, ui.host.url, user.email, user.password);
    expect(await addPasskey(page, ui.host.url, 'Laptop')).toBe('Passkey "Laptop" added.');
    await shot(page, 'account-settings-one-passkey');
    // The same authenticator again: excluded by the server, so the browser refuses (the spec's mapping).
    expect(await addPasskey(page, ui.host.url, 'Laptop again')).toBe('This device already has a passkey for this account.');
    const laptop = (await credentialsOf(a))[0]!;
    expect(laptop).toMatchObject({ rpId: 'localhost', isResidentCredential: true });

    // A second device: another authenticator.
    await a.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: a.id });
    const b = await addAuthenticator(page, a.cdp);
    expect(await addPasskey(page, ui.host.url, 'Phone')).toBe('Passkey "Phone" added.');
    await expect.poll(() => page.locator('[data-passkey-id]').count()).toBe(2);
    await shot(page, 'account-settings-two-passkeys');
    const listed = await passkeysOf(project, user.userId);
    expect(listed.map((p) => [p.name, p.rp_id, p.last_used_at_millis])).toEqual([
      ['Laptop', 'localhost', null],
      ['Phone', 'localhost', null],
    ]);
    expect((await server.getUserById(user.userId))?.passkey_auth_enabled).toBe(true);

    // Sign in with the phone's passkey (the button; passwordless, so the page has no autofill field).
    await signOut(page, ui.host.url);
    await setPasswordSignIn(project, false);
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await shot(page, 'sign-in-with-passkey-button');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${ui.host.url}/`);
    await expect.poll(() => page.getByTestId('greeting').innerText()).toContain(user.email);
    let after = await passkeysOf(project, user.userId);
    expect(after.find((p) => p.name === 'Phone')!.last_used_at_millis).not.toBeNull();
    expect(after.find((p) => p.name === 'Laptop')!.last_used_at_millis).toBeNull();

    // The laptop's passkey, on a fresh authenticator holding only it, through autofill: the page
    // starts a conditional request as soon as the sign-in form (its email field) is there, and
    // the virtual authenticator answers it at once.
    await signOut(page, ui.host.url);
    await setPasswordSignIn(project, true);
    await b.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: b.id });
    const c = await addAuthenticator(page, b.cdp);
    await c.cdp.send('WebAuthn.addCredential', { authenticatorId: c.id, credential: laptop });
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.waitForURL(`${ui.host.url}/`, { timeout: 20_000 });
    await expect.poll(() => page.getByTestId('greeting').innerText()).toContain(user.email);
    after = await passkeysOf(project, user.userId);
    expect(after.find((p) => p.name === 'Laptop')!.last_used_at_millis).not.toBeNull();
    await context.close();
  });

  it('refuses a failed user verification, a passkey of another project, and an origin the project does not trust', async () => {
    const { project, page, context } = await setup();
    const user = await ui.h.signUpUser(project);
    const auth = await addAuthenticator(page);
    await signInWithPassword(page, ui.host.url, user.email, user.password);
    expect(await addPasskey(page, ui.host.url, 'Laptop')).toBe('Passkey "Laptop" added.');
    await signOut(page, ui.host.url);
    await setPasswordSignIn(project, false);

    // The authenticator cannot verify the user: no sign-in.
    await auth.cdp.send('WebAuthn.setUserVerified', { authenticatorId: auth.id, isUserVerified: false });
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(() => page.locator('.latch-passkey .latch-alert').count()).toBe(1);
    await shot(page, 'sign-in-user-verification-failed');
    expect(new URL(page.url()).pathname).toBe('/handler/sign-in');
    await auth.cdp.send('WebAuthn.setUserVerified', { authenticatorId: auth.id, isUserVerified: true });

    // The server checks user verification itself: a response without it (asked for with
    // userVerification 'discouraged', bypassing the SDK) is PASSKEY_AUTHENTICATION_FAILED.
    await auth.cdp.send('WebAuthn.setUserVerified', { authenticatorId: auth.id, isUserVerified: false });
    const bypass = await page.evaluate(
      async ({ baseUrl, projectId, key }) => {
        const headers = {
          'content-type': 'application/json',
          'x-latch-project-id': projectId,
          'x-latch-access-type': 'client',
          'x-latch-publishable-client-key': key,
        };
        const started = await (await fetch(`${baseUrl}/api/v1/auth/passkey/initiate-passkey-authentication`, { method: 'POST', headers, body: '{}' })).json();
        const b64 = (bytes: ArrayBuffer) =>
          btoa(String.fromCharCode(...new Uint8Array(bytes)))
            .replace(/\+/g, '-')
            .replace(/\//g, '_')
            .replace(/=+$/, '');
        const unb64 = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
        const credential = (await navigator.credentials.get({
          publicKey: { challenge: unb64(started.options_json.challenge), rpId: location.hostname, userVerification: 'discouraged', allowCredentials: [] },
        })) as PublicKeyCredential;
        const response = credential.response as AuthenticatorAssertionResponse;
        const body = {
          code: started.code,
          authentication_response: {
            id: credential.id,
            rawId: b64(credential.rawId),
            type: 'public-key',
            response: {
              clientDataJSON: b64(response.clientDataJSON),
              authenticatorData: b64(response.authenticatorData),
              signature: b64(response.signature),
              ...(response.userHandle ? { userHandle: b64(response.userHandle) } : {}),
            },
            clientExtensionResults: {},
          },
        };
        const res = await fetch(`${baseUrl}/api/v1/auth/passkey/sign-in`, { method: 'POST', headers, body: JSON.stringify(body) });
        return { status: res.status, body: await res.json() };
      },
      { baseUrl: ui.h.url, projectId: project.id, key: project.publishableClientKey },
    );
    expect(bypass.status).toBe(400);
    expect(bypass.body.code).toBe('PASSKEY_AUTHENTICATION_FAILED');
    expect(bypass.body.error).toMatch(/user could not be verified/i);
    await auth.cdp.send('WebAuthn.setUserVerified', { authenticatorId: auth.id, isUserVerified: true });

    // Another project on the same origin: the browser offers the passkey (same RP ID), the
    // server does not know it.
    const other = await ui.h.createProject({ config: { passkey_enabled: true, credential_enabled: false } });
    const otherPage = await openApp(other);
    const otherAuth = await addAuthenticator(otherPage.page);
    await otherAuth.cdp.send('WebAuthn.addCredential', { authenticatorId: otherAuth.id, credential: (await credentialsOf(auth))[0]! });
    await otherPage.page.goto(`${ui.host.url}/handler/sign-in`);
    await otherPage.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(() => otherPage.page.locator('.latch-passkey .latch-alert').innerText()).toBe('This passkey is not registered with this project.');
    await shot(otherPage.page, 'sign-in-other-project');
    await otherPage.context.close();

    // The project's own origin still works.
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${ui.host.url}/`);
    await context.close();
  });

  it('refuses a passkey added from an origin that is not a trusted domain of the project', async () => {
    // Trusted: http://localhost:PORT only (no allow_localhost). The page runs at app.localhost.
    const port = new URL(ui.host.url).port;
    const untrusted = `http://app.localhost:${port}`;
    const { project, page, context, server } = await setup({ allow_localhost: false, domains: [{ domain: ui.host.url, handler_path: '/handler' }] }, untrusted);
    const user = await ui.h.signUpUser(project);
    await addAuthenticator(page);
    await signInWithPassword(page, untrusted, user.email, user.password);
    expect(await addPasskey(page, untrusted, 'Laptop')).toBe(`The origin "${untrusted}" is not a trusted domain of this project.`);
    await shot(page, 'register-untrusted-origin');
    expect(await passkeysOf(project, user.userId)).toEqual([]);

    // The trusted origin itself registers fine.
    const trusted = await openApp(project);
    await addAuthenticator(trusted.page);
    await signInWithPassword(trusted.page, ui.host.url, user.email, user.password);
    expect(await addPasskey(trusted.page, ui.host.url, 'Laptop')).toBe('Passkey "Laptop" added.');
    await trusted.context.close();
    await context.close();
  });
});
