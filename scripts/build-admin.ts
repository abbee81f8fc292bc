/**
 * Builds the admin console into dist/admin-web when it is missing or older than its sources, so
 * `npm install` (postinstall) and `npm start` (prestart) need no separate step and a start with
 * nothing changed costs one directory walk (~10 ms). `--force` always builds.
 */
import { buildAdminIfStale } from '../admin-web/build.js';

const started = Date.now();
const built = await buildAdminIfStale({ force: process.argv.includes('--force') });
if (built) console.log(`[latch] admin console built into dist/admin-web in ${((Date.now() - started) / 1000).toFixed(1)} s`);
