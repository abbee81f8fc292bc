/**
 * Builds the admin console into dist/admin-web when it is missing or older than its sources, so
 * `npm install` (postinstall) and `npm start` (prestart) need no separate step and a start with
 * nothing changed costs one directory walk (~10 ms, plus tsx start-up). `--force` always builds.
 */
import { buildAdminIfStale } from '../admin-web/build.js';

const started = Date.now();
try {
  const built = await buildAdminIfStale({ force: process.argv.includes('--force') });
  if (built) console.log(`[latch] admin console built into dist/admin-web in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  // An install without devDependencies (npm install --omit=dev) has no Vite: the API still runs,
  // and / says the console is not built. Never fail the install or the start for it.
  const missingVite = error instanceof Error && /Cannot find (package|module) 'vite'/.test(error.message);
  console.warn(
    `[latch] admin console not built: ${missingVite ? 'Vite is not installed (devDependencies omitted)' : error instanceof Error ? error.message : String(error)}`,
  );
  if (!missingVite) process.exitCode = 1;
}
