/**
 * A fresh Vite + React app that installs the packed `@latch/sdk` and `@latch/react` tarballs and
 * nothing of this repository by path, for the packages' acceptance test (scripts/packages.test.ts).
 *
 * It installs without the network: `npm install --offline` reuses the npm cache that the root's
 * `npm ci` filled. That cache holds tarballs by integrity, not the registry's package documents,
 * so npm can resolve nothing by version range offline; the app therefore gets a lockfile written
 * from the root's `package-lock.json` (the same versions as the repository, each with its integrity),
 * plus the two tarballs' own entries.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/** The app's own dependencies besides the two packages: the versions the repository uses. */
const APP_DEPENDENCIES = ['react', 'react-dom'];
const APP_DEV_DEPENDENCIES = ['vite', '@vitejs/plugin-react', 'typescript', '@types/react', '@types/react-dom'];

/** Where npm would find `name` from the package at `from` (a lockfile path; '' is the root). */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let base = from; ;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

function manifest(dir: string): LockEntry & { name: string } {
  return JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as LockEntry & { name: string };
}

function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`;
}

/**
 * The app's `package-lock.json`: every package the app's dependencies reach, copied from the root's
 * lockfile (required peers included, optional peers not), under the same paths.
 */
function appLockfile(app: Record<string, unknown>, tarballs: { sdk: string; react: string }, appDir: string): object {
  const rootLock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packages: Record<string, LockEntry> = { '': app as LockEntry };
  const queue: [string, string][] = [];
  const need = (from: string, entry: LockEntry) => {
    const optionalPeers = new Set(Object.entries(entry.peerDependenciesMeta ?? {}).flatMap(([name, meta]) => (meta.optional ? [name] : [])));
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name)),
    ];
    for (const name of names) queue.push([from, name]);
  };
  for (const [spec, file] of [
    ['sdk', tarballs.sdk],
    ['react-ui', tarballs.react],
  ] as const) {
    const { name, version, dependencies, peerDependencies } = manifest(spec);
    const entry: LockEntry = { version, resolved: `file:${path.relative(appDir, file)}`, integrity: integrityOf(file), dependencies, peerDependencies };
    packages[`node_modules/${name}`] = entry;
    need(`node_modules/${name}`, entry);
  }
  need('', { dependencies: Object.fromEntries([...APP_DEPENDENCIES, ...APP_DEV_DEPENDENCIES].map((name) => [name, '*'])) });
  while (queue.length > 0) {
    const [from, name] = queue.pop()!;
    if (name.startsWith('@latch/')) continue;
    const at = locate(rootLock.packages, from, name);
    if (!at) {
      // An optional dependency of another platform is absent from the lockfile.
      continue;
    }
    if (packages[at]) continue;
    const { dev, devOptional, peer, ...entry } = rootLock.packages[at]!;
    (void dev, void devOptional, void peer);
    packages[at] = entry;
    need(at, entry);
  }
  return { name: app.name, lockfileVersion: 3, requires: true, packages };
}

function rootVersion(name: string): string {
  return (JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Writes the app (package.json, lockfile, tsconfig, vite config, source) into `dir` and installs it offline. */
export function createFreshApp(dir: string, tarballs: { sdk: string; react: string }, source: Record<string, string>): void {
  fs.mkdirSync(dir, { recursive: true });
  const app = {
    name: 'fresh-latch-app',
    version: '0.0.0',
    private: true,
    type: 'module',
    dependencies: {
      '@latch/sdk': `file:${path.relative(dir, tarballs.sdk)}`,
      '@latch/react': `file:${path.relative(dir, tarballs.react)}`,
      ...Object.fromEntries(APP_DEPENDENCIES.map((name) => [name, rootVersion(name)])),
    },
    devDependencies: Object.fromEntries(APP_DEV_DEPENDENCIES.map((name) => [name, rootVersion(name)])),
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(app, null, 2));
  fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(appLockfile(app, tarballs, dir), null, 2));
  for (const [file, text] of Object.entries(source)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  execFileSync('npm', ['install', '--offline', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
