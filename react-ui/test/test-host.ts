/**
 * The example app built once with Vite and served as static files (index.html for every other
 * path, as a host app would), for the browser tests. Each test's page gets its project through
 * `window.__LATCH_CONFIG__` (an init script), so one build serves every test's own project.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';
import { serveStatic } from '../../server/test/static-host.js';

const exampleDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'react-app');

export interface TestHost {
  /** `http://localhost:PORT` (a secure context, and a localhost the project trusts). */
  url: string;
  close(): Promise<void>;
}

export async function startTestHost(): Promise<TestHost> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'latch-ui-'));
  await build({ root: exampleDir, configFile: false, plugins: [react()], logLevel: 'warn', build: { outDir, emptyOutDir: true, minify: false } });
  const host = await serveStatic(outDir);
  return {
    url: host.url,
    close: async () => {
      await host.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
