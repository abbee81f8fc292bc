import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * What the two builds (the server's, scripts/server-build.ts, and the console's, admin-web/build.ts)
 * share: whether an output is older than its sources, and putting a new build in place whole.
 */

/** The newest modification time under `entry`: test files, dot entries, node_modules and `skipDirs` do not count. */
function newestMtime(entry: string, skipDirs: readonly string[]): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(entry) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const child of readdirSync(entry)) {
    if (child === 'node_modules' || skipDirs.includes(child) || child.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child), skipDirs));
  }
  return newest;
}

/** Whether the file `output` is missing or older than a file in `sources` (absolute paths: files or folders). */
export function outputIsStale(output: string, sources: readonly string[], options: { skipDirs?: readonly string[] } = {}): boolean {
  if (!existsSync(output)) return true;
  const builtAt = statSync(output).mtimeMs;
  return sources.some((source) => newestMtime(source, options.skipDirs ?? []) > builtAt);
}

/**
 * Builds into a temporary folder beside `dist`, then moves it into place, so a reader (a starting
 * server, a parallel test) never sees a half-written build.
 */
export async function replaceBuild(dist: string, build: (temporary: string) => Promise<void>): Promise<void> {
  const temporary = `${dist}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(temporary, { recursive: true });
  await build(temporary);
  rmSync(dist, { recursive: true, force: true });
  renameSync(temporary, dist);
}
