import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../test/harness.js';
import { type TestBrowser, launchBrowser } from '../test/browser.js';

/**
 * The API reference in real Chromium (issue 20): it renders the operations with their examples
 * and error codes, and makes no request to any other origin (no CDN, no validator badge, no
 * telemetry). Every request the page makes is recorded, including blocked ones.
 */
let h: Harness;
let browser: TestBrowser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('the API reference at /api/v1/docs', () => {
  it('renders an operation with its examples and error codes, from this server alone', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${h.url}/api/v1/docs`);
    // Open one operation: its example and its error codes render.
    const first = page.locator('.opblock:has([data-path="/auth/anonymous/sign-up"])');
    await first.waitFor({ timeout: 90_000 });
    await first.locator('.opblock-summary-control').click();
    await expect.poll(() => first.innerText(), { timeout: 30_000 }).toContain('ANONYMOUS_ACCOUNTS_NOT_ENABLED');
    expect(await first.innerText()).toContain('access_token');
    await browser.screenshot(page, 'docs', 'anonymous-sign-up');
    await page.waitForLoadState('networkidle');
    const origin = new URL(h.url).origin;
    const foreign = requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'));
    expect(foreign).toEqual([]);
    expect(requested.some((url) => url.endsWith('/api/v1/docs/openapi.json'))).toBe(true);
  }, 180_000);
});
