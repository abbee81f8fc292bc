import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Real headless Chromium for the UI tests: Debian's /usr/bin/chromium driven by playwright-core
 * (no browser is ever downloaded). The flags keep Chromium off the network: this machine's network
 * is closed, and background services would otherwise retry refused connections all the time.
 */
export const CHROMIUM_PATH = process.env.LATCH_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where screenshots are kept as test artifacts (git-ignored). */
export const ARTIFACTS_DIR = path.resolve(process.env.LATCH_TEST_ARTIFACTS ?? 'test-artifacts');

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (own cookies and storage) per test; closed with the browser. */
  newContext(options?: Parameters<Browser['newContext']>[0]): Promise<BrowserContext>;
  /** Saves a full-page PNG under test-artifacts/<suite>/<name>.png and returns its path. */
  screenshot(page: Page, suite: string, name: string): Promise<string>;
  close(): Promise<void>;
}

/** Playwright gives each launch its own temporary profile, so runs never share state. */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return {
    browser,
    newContext: (options) => browser.newContext({ viewport: { width: 1280, height: 800 }, ...options }),
    async screenshot(page, suite, name) {
      const dir = path.join(ARTIFACTS_DIR, suite);
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${name.replace(/[^a-z0-9-_]+/gi, '-')}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await browser.close();
    },
  };
}
