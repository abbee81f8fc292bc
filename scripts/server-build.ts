import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputIsStale, replaceBuild } from './build-output.js';

/**
 * The production build of the server: `server/main.ts` and everything it imports from this
 * repository bundled by esbuild into `dist/server/main.mjs` and its lazily loaded chunks (packages from
 * node_modules stay imports). `npm start` runs it with plain `node`, so production pays neither
 * tsx's start-up (its esbuild service and per-file transforms) nor its memory. Tests and the
 * bench's A/B tools keep running the TypeScript sources directly.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_DIST = path.join(root, 'dist/server');
export const SERVER_ENTRY = path.join(SERVER_DIST, 'main.mjs');

/** Everything the bundle is made from. */
const SOURCES = ['server', 'contract', 'migrations', 'tsconfig.json', 'package-lock.json'];

/** Files the bundle loads by URL at run time, copied beside it (the e-mail sandbox's worker thread). */
const RUNTIME_FILES = ['server/domains/emails/sandbox/worker-boot.mjs'];

export function serverBuildIsStale(): boolean {
  return outputIsStale(
    SERVER_ENTRY,
    SOURCES.map((source) => path.join(root, source)),
    // server/compat: the compatibility tests and the REST types generated for them, not the server.
    { skipDirs: ['test', 'compat'] },
  );
}

/**
 * Builds when stale, into a temporary folder first and then moved into place, so a starting server
 * never loads a half-written bundle.
 */
export async function buildServerIfStale(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && !serverBuildIsStale()) return false;
  const { build } = await import('esbuild');
  await replaceBuild(SERVER_DIST, async (temporary) => {
    // Both bundles: Node 20 ES modules, packages from node_modules left as imports.
    const common = {
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      packages: 'external',
      sourcemap: 'linked',
      jsx: 'automatic',
      tsconfig: path.join(root, 'tsconfig.json'),
      logLevel: 'warning',
      legalComments: 'none',
    } as const;
    await build({
      ...common,
      // Split: what the server loads with import() (React Email and the built-in templates on the
      // first email, esbuild on the first owner template saved) becomes a chunk of its own beside
      // main.mjs, with its packages imported there, instead of being hoisted into the start-up path.
      entryPoints: { main: path.join(root, 'server/main.ts') },
      outdir: temporary,
      outExtension: { '.js': '.mjs' },
      splitting: true,
      chunkNames: '[name]-[hash]',
    });
    // The e-mail render threads' module, compiled beside main.mjs (engine.ts starts it by URL).
    await build({
      ...common,
      entryPoints: [path.join(root, 'server/domains/emails/sandbox/render-worker.ts')],
      outfile: path.join(temporary, 'render-worker.mjs'),
    });
    // The bundle's own folder names where runtime files are looked up (import.meta.url).
    for (const file of RUNTIME_FILES) copyFileSync(path.join(root, file), path.join(temporary, path.basename(file)));
  });
  return true;
}
