import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

/**
 * `npm install` phones no one (issue 20 item 7). swagger-ui-dist depends on @scarf/scarf, whose
 * install script reports the install to scarf.sh unless the root package opts out; npm 11 does
 * not run install scripts by default, but npm 9 and 10 do.
 */
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scarfSettings?: { enabled?: boolean } };
const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, unknown> };

it('opts out of every install-time telemetry package in the lockfile', () => {
  const telemetry = Object.keys(lock.packages).filter((name) => name.endsWith('node_modules/@scarf/scarf'));
  if (telemetry.length > 0) expect(pkg.scarfSettings?.enabled).toBe(false);
  // Any other package known to report installs would be listed here with its opt-out.
  expect(Object.keys(lock.packages).filter((name) => /node_modules\/(?:@scarf\/|scarf-)/.test(name) && !name.endsWith('@scarf/scarf'))).toEqual([]);
});
