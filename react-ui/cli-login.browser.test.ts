import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../server/test/harness.js';
import { ClientApp, KnownErrors } from '../sdk/index.js';
import { openAppPage, useUiSuite } from './test/suite.js';

/**
 * CLI login end to end (issue 16): the demo CLI (examples/cli/cli.ts) as a real child process, a
 * real headless Chromium confirming on the UI kit's /handler/cli-auth-confirm page of the example
 * app, against a real Latch server. The CLI is killed after showing its link and started again:
 * the polling code it kept is all it needs to pick up the approval. Screenshots go to
 * test-artifacts/cli-login/.
 */

const SUITE = 'cli-login';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

const ui = useUiSuite();
let project: ProjectFixture;
let stateDir: string;

beforeAll(async () => {
  project = await ui.h.createProject({ displayName: 'Acme notes' });
  stateDir = mkdtempSync(path.join(tmpdir(), 'latch-cli-'));
});
afterAll(() => {
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

interface Cli {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function runCli(stateFile: string, command = 'login'): Cli {
  // One process (node with tsx's loader), so killing it kills the CLI itself, not a wrapper.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'examples', 'cli', 'cli.ts'), command], {
    cwd: ROOT,
    env: {
      ...process.env,
      LATCH_PROJECT_ID: project.id,
      LATCH_PUBLISHABLE_CLIENT_KEY: project.publishableClientKey,
      LATCH_BASE_URL: ui.h.url,
      LATCH_APP_URL: ui.host.url,
      LATCH_CLI_STATE: stateFile,
      LATCH_CLI_WAIT_MS: '1000',
    },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function linkOf(cli: Cli): Promise<string> {
  await expect.poll(() => /https?:\/\/\S+cli-auth-confirm\?login_code=\S+/.exec(cli.stderr())?.[0], { timeout: 30_000, interval: 100 }).toBeTruthy();
  return /https?:\/\/\S+cli-auth-confirm\?login_code=\S+/.exec(cli.stderr())![0];
}

async function newPage(): Promise<Page> {
  return (await openAppPage(ui, project)).page;
}

const shot = (page: Page, name: string) => ui.browser.screenshot(page, SUITE, name);

describe('CLI login through the browser', () => {
  it('the demo CLI shows a link, is killed and restarted, and gets its own session once the signed-out visitor signs in and approves', async () => {
    const user = await ui.h.signUpUser(project);
    const stateFile = path.join(stateDir, 'approve.json');

    // 1. The CLI asks, shows the link, keeps its polling code, and is killed while it waits.
    const first = runCli(stateFile);
    const link = await linkOf(first);
    expect(link.startsWith(`${ui.host.url}/handler/cli-auth-confirm?login_code=`)).toBe(true);
    await expect.poll(() => existsSync(stateFile) && JSON.parse(readFileSync(stateFile, 'utf8')).pending?.pollingCode).toBeTruthy();
    first.child.kill('SIGKILL');
    await first.exited;

    // 2. A signed-out browser opens the link: to sign-in, and back to the confirm page after it.
    const page = await newPage();
    await page.goto(link);
    await page.waitForURL('**/handler/sign-in?after_auth_return_to=*');
    expect(decodeURIComponent(new URL(page.url()).searchParams.get('after_auth_return_to')!)).toBe(link.slice(ui.host.url.length));
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(user.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/handler/cli-auth-confirm?login_code=*');
    // Which app asks, as whom, when and from where.
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Confirm CLI sign-in');
    await expect.poll(() => page.locator('.latch-page').innerText()).toContain(`A command line app asks to sign in to Acme notes as ${user.email}.`);
    await expect.poll(() => page.getByTestId('cli-request').innerText()).toContain('from 127.0.0.1');
    await shot(page, 'confirm');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('CLI sign-in approved');
    await shot(page, 'approved');

    // 3. The restarted CLI resumes with the kept polling code and prints the user.
    const second = runCli(stateFile);
    expect(await second.exited, second.stderr()).toBe(0);
    expect(second.stderr()).toContain('Resuming the sign-in');
    expect(JSON.parse(second.stdout().trim())).toEqual({ id: user.userId, primary_email: user.email, display_name: null });
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { refreshToken: string; pending?: unknown };
    expect(saved.pending).toBeUndefined();

    // The CLI's session is its own: not the browser's token, and signing the CLI out leaves the browser signed in.
    const browserRefresh = (await page.context().cookies()).find((c) => c.name === `latch-refresh-${project.id}`)?.value;
    expect(browserRefresh).toBeTruthy();
    expect(saved.refreshToken).not.toBe(browserRefresh);
    const whoami = runCli(stateFile, 'whoami');
    expect(await whoami.exited).toBe(0);
    expect(JSON.parse(whoami.stdout().trim()).id).toBe(user.userId);
    const logout = runCli(stateFile, 'logout');
    expect(await logout.exited).toBe(0);
    expect((await ui.h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': saved.refreshToken })).status).toBe(401);
    expect((await ui.h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': browserRefresh })).status).toBe(200);

    // The link is spent: opening it again says so.
    await page.goto(link);
    await expect.poll(() => page.getByRole('alert').first().innerText()).toBe('This authentication token has already been used.');
    // Four CLI processes start (tsx compiles the SDK each time): minutes on a loaded machine are fine.
  }, 120_000);

  it('deny in the browser ends promptCliLogin with CliAuthError', async () => {
    const user = await ui.h.signUpUser(project);
    const cliApp = new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: ui.h.url, tokenStore: 'memory' });
    let url = '';
    const result = cliApp.promptCliLogin({ appUrl: ui.host.url, waitTimeMillis: 1000, promptLink: (link) => void (url = link) });
    await expect.poll(() => url).not.toBe('');

    const page = await newPage();
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(user.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.endsWith('/sign-in'));
    await page.goto(url);
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('CLI sign-in denied');
    await shot(page, 'denied');

    const outcome = await result;
    expect(outcome.status).toBe('error');
    if (outcome.status === 'error') expect(outcome.error).toBeInstanceOf(KnownErrors.CliAuthError);
  }, 60_000);
});
