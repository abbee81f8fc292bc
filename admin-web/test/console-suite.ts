/**
 * The fixture every console browser test starts from: the console built when stale, a real Latch
 * server that serves it and headless Chromium; pages in fresh contexts (closed after each test, so
 * a failed test leaves no page talking to the server); and an owner's sign-in through the
 * console's own form.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { type Harness, type TestEnvOverrides, startHarness } from '../../server/test/harness.js';
import { type TestBrowser, launchBrowser } from '../../server/test/browser.js';
import { buildAdminIfStale } from '../build.js';

/** The password the harness gives every owner it signs up (`h.signUpOwner`, `h.createProject`). */
export const OWNER_PASSWORD = 'owner-password-1';

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors, and Content-Security-Policy refusals (only a console message otherwise). */
  errors: string[];
}

export interface ConsoleSuite {
  h: Harness;
  browser: TestBrowser;
  /**
   * A page in a fresh context (its own cookies), closed after the test. `timeoutMs` is Playwright's
   * default timeout for the page: a stuck step fails with Playwright's message (what was awaited)
   * well before the test's own timeout.
   */
  newPage(options?: { timeoutMs?: number; context?: Parameters<TestBrowser['newContext']>[0] }): Promise<ConsolePage>;
}

/**
 * The suite of a test file: started before its tests (`env` for the server; a function for a
 * server that needs something started first: an SMTP sink, a provider zoo, a webhook receiver),
 * closed after them; its `h` and `browser` are there once `beforeAll` has run.
 */
export function useConsoleSuite(env: TestEnvOverrides | (() => Promise<TestEnvOverrides>) = {}, startTimeoutMs = 120_000): ConsoleSuite {
  const contexts: BrowserContext[] = [];
  const suite: ConsoleSuite = {
    h: undefined as unknown as Harness,
    browser: undefined as unknown as TestBrowser,
    async newPage({ timeoutMs = 8000, context: contextOptions } = {}) {
      const context = await suite.browser.newContext(contextOptions);
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(timeoutMs);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) errors.push(message.text());
      });
      return { context, page, errors };
    },
  };
  beforeAll(async () => {
    // Built once when stale (seconds); the server reads dist/admin-web when it starts.
    await buildAdminIfStale();
    [suite.h, suite.browser] = await Promise.all([startHarness(typeof env === 'function' ? await env() : env), launchBrowser()]);
  }, startTimeoutMs);
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close().catch(() => {})));
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.h?.close();
  });
  return suite;
}

/**
 * Opens `path` of the console (a deep link: the sign-in form shows first) and signs in there as
 * the owner `email`; done once `until` shows (the console's "Sign out" button unless said otherwise).
 */
export async function signInOwner(
  suite: Pick<ConsoleSuite, 'h'>,
  page: Page,
  path: string,
  email: string,
  { password = OWNER_PASSWORD, until = page.getByRole('button', { name: 'Sign out' }) }: { password?: string; until?: Locator } = {},
): Promise<void> {
  await page.goto(`${suite.h.url}${path}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await until.waitFor();
}
