import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, launchBrowser } from '../server/test/browser.js';
import { type Harness, startHarness } from '../server/test/harness.js';
import { type StaticHost, serveStatic } from '../server/test/static-host.js';
import { createFreshApp } from './fresh-app.js';
import { packPackages } from './packages.js';

/**
 * The packages as a newcomer uses them: `npm pack` both, a fresh Vite + React app in a temporary
 * folder installs the two tarballs (nothing of this repository by path, offline from the npm
 * cache), type-checks with tsc (strict, library declarations checked too), builds with Vite, and
 * in Chromium signs a user up, opens account settings, renames them, and signs out against a real
 * Latch server.
 */

const APP_SOURCE: Record<string, string> = {
  'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fresh app</title></head><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>`,
  'vite.config.ts': `import react from '@vitejs/plugin-react';\nimport { defineConfig } from 'vite';\nexport default defineConfig({ plugins: [react()] });\n`,
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'bundler',
      lib: ['ES2022', 'ESNext.Disposable', 'DOM', 'DOM.Iterable'],
      jsx: 'react-jsx',
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      types: [],
    },
    // vite.config.ts runs in Node (Vite's own template checks it with @types/node, apart).
    include: ['src'],
  }),
  'src/main.tsx': `import { StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { ClientApp, KnownErrors, type ClientUser } from '@latch/sdk';
import { LatchHandler, LatchProvider, Loading, useUser } from '@latch/react';

declare global {
  interface Window {
    __LATCH_CONFIG__: { projectId: string; publishableClientKey: string; baseUrl: string };
  }
}

const app = new ClientApp(window.__LATCH_CONFIG__);

/** Typed, not any: the SDK's declarations carry the server's wire types. */
export async function signIn(email: string, password: string): Promise<string> {
  const result = await app.signInWithPassword({ email, password });
  if (result.status === 'error') return result.error instanceof KnownErrors.EmailPasswordMismatch ? 'wrong password' : result.error.message;
  // @ts-expect-error: user_id is a string
  const wrong: number = result.data.user_id;
  return String(wrong);
}

function Home() {
  const user: ClientUser | null = useUser();
  // @ts-expect-error: primary_email is string | null (the router's output type)
  const typed: number | undefined = user?.primary_email;
  void typed;
  if (!user) return <p data-testid="signed-out">Signed out. <a href="/handler/sign-up">Sign up</a></p>;
  return (
    <p data-testid="signed-in">
      Signed in as {user.display_name ?? user.primary_email}. <a href="/handler/account-settings">Account settings</a> <a href="/handler/sign-out">Sign out</a>
    </p>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LatchProvider app={app} redirectMethod="window">
      {location.pathname.startsWith('/handler/') ? <LatchHandler /> : <Suspense fallback={<Loading />}><Home /></Suspense>}
    </LatchProvider>
  </StrictMode>,
);
`,
};

let work: string;
let appDir: string;
let h: Harness;
let host: StaticHost;
let browser: TestBrowser;
const timings: string[] = [];

async function timed<T>(label: string, run: () => T | Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await run();
  timings.push(`${label} ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return result;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'latch-packages-'));
  appDir = path.join(work, 'app');
  const serverReady = Promise.all([startHarness(), launchBrowser()]);
  const tarballs = await timed('build + pack', () => packPackages(path.join(work, 'tarballs')));
  await timed('offline install', () => createFreshApp(appDir, tarballs, APP_SOURCE));
  [h, browser] = await serverReady;
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await h?.close();
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`packages acceptance: ${timings.join(', ')}`);
});

const bin = (name: string) => path.join(appDir, 'node_modules', '.bin', name);

describe('the packed SDK and UI kit in a fresh Vite + React app', () => {
  it('installs from the tarballs alone, with no server code and no zod', async () => {
    const installed = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: appDir, encoding: 'utf8' });
    expect(installed).toContain(path.join('node_modules', '@latch', 'sdk'));
    expect(installed).toContain(path.join('node_modules', '@latch', 'react'));
    for (const serverOnly of ['express', 'kysely', 'pg', 'zod', 'jose', '@node-rs', '@electric-sql']) {
      expect(installed.split('\n').filter((line) => line.endsWith(`${path.sep}node_modules${path.sep}${serverOnly}`))).toEqual([]);
    }
  });

  it('type-checks with tsc (library declarations included) and builds with Vite', async () => {
    await timed('tsc', () => execFileSync(bin('tsc'), ['-p', '.'], { cwd: appDir, stdio: 'inherit' }));
    await timed('vite build', () => execFileSync(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: appDir, stdio: 'inherit' }));
    host = await serveStatic(path.join(appDir, 'dist'));
  }, 120_000);

  it('signs up, opens account settings, renames the user and signs out in Chromium', async () => {
    const project = await h.createProject({ displayName: 'Fresh app' });
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    await context.addInitScript(
      (config) => {
        (window as unknown as { __LATCH_CONFIG__: unknown }).__LATCH_CONFIG__ = config;
      },
      { projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: h.url },
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const field = (name: string) => page.getByRole('textbox', { name, exact: true });

    await page.goto(host.url);
    await page.getByTestId('signed-out').waitFor();
    await page.getByRole('link', { name: 'Sign up' }).click();
    const email = h.uniqueEmail('fresh');
    await field('Email').fill(email);
    await field('Password').fill('correct-horse-battery');
    await field('Repeat password').fill('correct-horse-battery');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await expect.poll(() => page.getByTestId('signed-in').innerText()).toContain(email);

    await page.getByRole('link', { name: 'Account settings' }).click();
    await page.waitForURL('**/handler/account-settings');
    await field('Display name').fill('Fresh Fern');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByText('Display name saved.').count()).toBe(1);

    await page.goto(host.url);
    await expect.poll(() => page.getByTestId('signed-in').innerText()).toContain('Fresh Fern');
    await page.getByRole('link', { name: 'Sign out' }).click();
    await page.getByTestId('signed-out').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
