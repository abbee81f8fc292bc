/**
 * `npm install` (postinstall) and `npm start` (prestart): builds what is missing or older than its
 * sources — the admin console into dist/admin-web, the server into dist/server, and the REST
 * client's types (server/compat/openapi-types.d.ts, from openapi.json) — so none needs a separate
 * step, and a start with nothing changed costs a few directory walks. `--force` always builds all.
 * `--openapi-types` builds only the types (`npm run typecheck` runs it first, so tsc never reads
 * types older than openapi.json).
 */
import { buildAdminIfStale } from '../admin-web/build.js';
import { buildServerIfStale } from './server-build.js';

const force = process.argv.includes('--force');

/**
 * Runs one build and says how long it took. A build whose tool is a devDependency (`devTool`) is
 * skipped where an install left devDependencies out (npm install --omit=dev): never fail the install
 * or the start for it. The console's build says so (the API still runs, and / says the console is not
 * built); the REST client's types, which only the typecheck reads, are skipped without a word
 * (`silent`). Any other failure sets the exit code.
 */
async function build(what: string, run: () => Promise<boolean>, devTool?: { module: string; name: string; silent?: true }): Promise<void> {
  const started = Date.now();
  try {
    if (await run()) console.log(`[latch] ${what} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const missingTool = devTool !== undefined && new RegExp(`Cannot find (package|module) '${devTool.module}'`).test(message);
    if (missingTool && devTool.silent) return;
    if (!devTool) console.error(`[latch] ${what} build failed: ${message}`);
    else console.warn(`[latch] ${what} not built: ${missingTool ? `${devTool.name} is not installed (devDependencies omitted)` : message}`);
    if (!missingTool) process.exitCode = 1;
  }
}

const openApiTypes = () =>
  build('REST client types (server/compat/openapi-types.d.ts)', async () => (await import('./openapi-types.js')).writeOpenApiTypesIfStale({ force }), {
    module: 'openapi-typescript',
    name: 'openapi-typescript',
    silent: true,
  });

if (process.argv.includes('--openapi-types')) {
  await openApiTypes();
} else {
  await build('server (dist/server)', () => buildServerIfStale({ force }));
  await build('admin console (dist/admin-web)', () => buildAdminIfStale({ force }), { module: 'vite', name: 'Vite' });
  await openApiTypes();
}
