/**
 * `npm install` (postinstall) and `npm start` (prestart): builds what is missing or older than its
 * sources — the admin console into dist/admin-web and the server into dist/server — so neither
 * needs a separate step, and a start with nothing changed costs two directory walks. `--force`
 * always builds both.
 */
import { buildAdminIfStale } from '../admin-web/build.js';
import { buildServerIfStale } from './server-build.js';

const force = process.argv.includes('--force');

let started = Date.now();
try {
  if (await buildServerIfStale({ force })) console.log(`[latch] server built into dist/server in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`[latch] server build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

started = Date.now();
try {
  if (await buildAdminIfStale({ force })) console.log(`[latch] admin console built into dist/admin-web in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  // An install without devDependencies (npm install --omit=dev) has no Vite: the API still runs,
  // and / says the console is not built. Never fail the install or the start for it.
  const missingVite = error instanceof Error && /Cannot find (package|module) 'vite'/.test(error.message);
  console.warn(
    `[latch] admin console not built: ${missingVite ? 'Vite is not installed (devDependencies omitted)' : error instanceof Error ? error.message : String(error)}`,
  );
  if (!missingVite) process.exitCode = 1;
}
