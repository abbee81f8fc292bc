import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * Only a domain's router.ts speaks tRPC: services, queries, DTOs and flows take plain arguments
 * (Deps, AuthContext, an Executor), so they serve the REST routes of server/http/ and any future
 * transport alike. Express routes that are not procedures live in server/http/.
 */
test('no file under server/domains but a router.ts imports server/trpc', () => {
  const offenders = sourcesUnder(here)
    .filter((file) => path.basename(file) !== 'router.ts')
    .filter((file) => /from '(\.\.\/)+trpc\//.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(here, file));
  expect(offenders).toEqual([]);
});
