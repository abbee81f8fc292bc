import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, stopChild, waitForHttp } from '../bench/lib/proc.js';
import { adminStatement, databaseUrl, setUpProject } from '../bench/lib/setup.js';
import { buildServerIfStale, SERVER_ENTRY, serverBuildIsStale } from './server-build.js';

/**
 * `npm start` runs the compiled bundle (dist/server/main.mjs), not the TypeScript sources: built at
 * install and again by prestart when a source is newer. This starts the bundle as `npm start` does,
 * on a fresh embedded database, and uses the parts that load files at run time: the migrations, the
 * console and API reference assets, and the e-mail sandbox's worker thread (loaded by URL beside the bundle).
 * On the PostgreSQL pass (LATCH_TEST_DB=postgres) it runs on a fresh PostgreSQL database instead.
 */
const ON_POSTGRES = process.env.LATCH_TEST_DB === 'postgres';
const ADMIN_URL = process.env.LATCH_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = `latch_compiled_${process.pid}`;
describe('the compiled server (npm start)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'latch-compiled-'));
  let url = '';
  let child: ReturnType<typeof spawn> | null = null;

  beforeAll(async () => {
    await buildServerIfStale();
    expect(serverBuildIsStale()).toBe(false);
    if (ON_POSTGRES) await adminStatement(ADMIN_URL, `CREATE DATABASE ${DB}`);
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LATCH_') && k !== 'DATABASE_URL' && k !== 'NODE_ENV') env[k] = v;
    child = spawn(process.execPath, ['--enable-source-maps', SERVER_ENTRY], {
      env: {
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LATCH_DATA_DIR: dataDir,
        LATCH_LOG_LEVEL: 'error',
        ...(ON_POSTGRES ? { DATABASE_URL: databaseUrl(ADMIN_URL, DB) } : {}),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/health`, performance.now(), 180_000, 50);
  }, 240_000);

  afterAll(async () => {
    if (child) await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
    if (ON_POSTGRES) await adminStatement(ADMIN_URL, `DROP DATABASE IF EXISTS ${DB}`);
  });

  it('serves the API, the console and the API reference', async () => {
    expect((await (await fetch(`${url}/health`)).json()).database).toBe('ok');
    const console = await fetch(`${url}/`);
    expect(console.status).toBe(200);
    expect(await console.text()).toContain('<div id="root">');
    expect((await fetch(`${url}/api/v1/docs/`)).status).toBe(200);
  });

  it('keeps React Email, esbuild, Stripe and SimpleWebAuthn off the start-up path: chunks and imports that load on first use', async () => {
    const dir = path.dirname(SERVER_ENTRY);
    const staticImports = (file: string) => [...readFileSync(path.join(dir, file), 'utf8').matchAll(/^import\s[^;]*?\sfrom\s"([^"]+)";$/gm)].map((m) => m[1]);
    const atStart = staticImports('main.mjs');
    expect(atStart).toContain('express'); // the pattern reads the bundle's imports
    for (const lazy of ['@react-email/components', '@react-email/render', 'react', 'esbuild', 'stripe', '@simplewebauthn/server'])
      expect(atStart).not.toContain(lazy);
    // The built-in emails' chunk imports React Email itself, and loads from beside the bundle.
    const compose = readdirSync(dir).find((file) => /^compose-.*\.mjs$/.test(file));
    expect(compose).toBeDefined();
    expect(staticImports(compose!)).toContain('@react-email/components');
    const module = (await import(pathToFileURL(path.join(dir, compose!)).href)) as Record<string, unknown>;
    expect(Object.values(module).some((value) => typeof value === 'function')).toBe(true);
  });

  it('renders owner TSX in the sandbox worker beside the bundle', async () => {
    const project = await setUpProject(url, 0, 'correct horse battery staple');
    const res = await fetch(`${url}/api/v1/emails/render-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...project.admin },
      body: JSON.stringify({
        template_tsx_source: 'export function EmailTemplate({ variables }) { return <p>Hello {variables.name}</p>; }',
        variables: { name: 'Ada' },
      }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).html).toContain('Hello Ada');
  });
});
