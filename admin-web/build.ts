import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputIsStale, replaceBuild } from '../scripts/build-output.js';

/** Node-side build helper of the console (used by scripts/build.ts and the browser tests); never bundled. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ADMIN_DIST = path.join(root, 'dist/admin-web');

/** Everything the bundle is made from: the console, the SDK, and the server modules it shares (schemas, error catalogue). */
const SOURCES = ['admin-web', 'sdk', 'server/domains', 'contract', 'vite.config.ts', 'package-lock.json'];

export function adminBuildIsStale(): boolean {
  return outputIsStale(
    path.join(ADMIN_DIST, 'index.html'),
    SOURCES.map((source) => path.join(root, source)),
  );
}

/**
 * Builds when stale. The build goes to a temporary folder first and is then moved into place, so
 * a server (or a parallel test) never reads a half-written dist/admin-web.
 */
export async function buildAdminIfStale(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && !adminBuildIsStale()) return false;
  await replaceBuild(ADMIN_DIST, buildAdminInto);
  return true;
}

/**
 * One production build of the console into `outDir`, whoever calls it. Vite keeps an inherited
 * NODE_ENV (vitest sets "test") and the React plugin then emits development JSX (`jsxDEV`), which
 * React's production build does not have: the page threw on load. So NODE_ENV is "production"
 * for the build and restored after.
 */
export async function buildAdminInto(outDir: string): Promise<void> {
  const { build } = await import('vite');
  const inherited = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: path.join(root, 'vite.config.ts'),
      root: path.join(root, 'admin-web'),
      logLevel: 'warn',
      mode: 'production',
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    if (inherited === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = inherited;
  }
}
