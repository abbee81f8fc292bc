/**
 * The fixture every UI-kit browser test starts from: a real Latch server, the example app built
 * and served (test-host.ts) and headless Chromium, plus a page of the example app pointed at a
 * test's project through `window.__LATCH_CONFIG__`.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { type Harness, type ProjectFixture, type TestEnvOverrides, startHarness } from '../../server/test/harness.js';
import { type TestBrowser, launchBrowser } from '../../server/test/browser.js';
import { type TestHost, startTestHost } from './test-host.js';

export interface UiSuite {
  h: Harness;
  host: TestHost;
  browser: TestBrowser;
  /** Closes the browser, the host and the server (what was started). */
  close(): Promise<void>;
}

/** Starts the three at once (the example app's build is the slow one). */
export async function startUiSuite(env: TestEnvOverrides = {}): Promise<UiSuite> {
  const [h, host, browser] = await Promise.all([startHarness(env), startTestHost(), launchBrowser()]);
  return {
    h,
    host,
    browser,
    close: async () => {
      await browser.close();
      await host.close();
      await h.close();
    },
  };
}

/**
 * The suite of a test file: started before its tests (with `env` for the server), closed after
 * them; its fields are there once `beforeAll` has run. `env` may be a function, for a server that
 * needs something started first (a provider zoo, an SMTP sink).
 */
export function useUiSuite(env: TestEnvOverrides | (() => Promise<TestEnvOverrides>) = {}): UiSuite {
  const suite = {} as UiSuite;
  beforeAll(async () => {
    Object.assign(suite, await startUiSuite(typeof env === 'function' ? await env() : env));
  }, 120_000);
  afterAll(async () => {
    await suite.close?.();
  });
  return suite;
}

export interface AppPageOptions {
  /** How the UI kit redirects (`history` unless a test checks full-page redirects). */
  redirectMethod?: 'window' | 'history';
  /** Playwright's default timeout in the context: a stuck step fails inside the test's own timeout. */
  timeoutMs?: number;
  /** More of the example app's config (`paymentItems`, `plans`). */
  config?: Record<string, unknown>;
}

/** A new browser context whose pages run the example app against `project`, and its first page. */
export async function openAppPage(
  suite: Pick<UiSuite, 'h' | 'browser'>,
  project: ProjectFixture,
  { redirectMethod = 'history', timeoutMs = 10_000, config = {} }: AppPageOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await suite.browser.newContext();
  context.setDefaultTimeout(timeoutMs);
  await context.addInitScript(
    (latchConfig) => {
      (window as unknown as { __LATCH_CONFIG__: unknown }).__LATCH_CONFIG__ = latchConfig;
    },
    { ...config, projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: suite.h.url, redirectMethod },
  );
  return { context, page: await context.newPage() };
}

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's WCAG 2.1 A/AA and best-practice rules on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_PATH });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((violation) => `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
  });
}
