/**
 * The example app built once with Vite and served as static files (index.html for every other
 * path, as a host app would), for the browser tests. Each test's page gets its project through
 * `window.__LATCH_CONFIG__` (an init script), so one build serves every test's own project.
 */
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

const exampleDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'react-app');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface TestHost {
  /** `http://localhost:PORT` (a secure context, and a localhost the project trusts). */
  url: string;
  close(): Promise<void>;
}

export async function startTestHost(): Promise<TestHost> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'latch-ui-'));
  await build({ root: exampleDir, configFile: false, plugins: [react()], logLevel: 'warn', build: { outDir, emptyOutDir: true, minify: false } });
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const file = path.join(outDir, path.normalize(pathname));
    const target = file.startsWith(outDir) && existsSync(file) && statSync(file).isFile() ? file : path.join(outDir, 'index.html');
    res.setHeader('content-type', TYPES[path.extname(target)] ?? 'application/octet-stream');
    createReadStream(target).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
