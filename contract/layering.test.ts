/**
 * The layering of the house, enforced on the import graph of the source tree (issue 14).
 *
 * Arrows run downward only: the SDK, the UI kit and the console import `contract/` (and the type of
 * the router), never `server/`; `contract/` imports nothing of Node, of the server or of the
 * packages built on it, so it can ship to a browser; `server/db` knows no domain; services and
 * queries know no tRPC, and neither does `server/access`.
 *
 * The graph is read from the sources with a small scanner (comments blanked out, then the
 * specifiers of `import … from`, `export … from`, `import '…'` and `import('…')` collected, relative
 * ones resolved to files), so the test needs no build and names the file and the import that break
 * a rule. Every violation is reported at once.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['contract', 'server', 'sdk', 'react-ui', 'admin-web'];
const BROWSER_PACKAGES = ['sdk', 'react-ui', 'admin-web'];

/**
 * Known offenders while a fix is under way (none today). Each entry
 * is `<file> -> <resolved import>`; an entry that no longer occurs fails the test, so the list can
 * only shrink.
 */
const TEMPORARILY_ALLOWED: readonly string[] = [
  // Empty since the foundation merge: every rule holds across the tree.
];

/** Packages that only run on the server: a browser-safe module must not import them, not even a type. */
const SERVER_ONLY_PACKAGES = [
  'express',
  'kysely',
  'pg',
  'jose',
  'nodemailer',
  'bcryptjs',
  'swagger-ui-dist',
  'trpc-to-openapi',
  'zod-openapi',
  'tsx',
  '@trpc/server',
  '@electric-sql/pglite',
  '@react-email/render',
  '@react-email/components',
];
const SERVER_ONLY_SCOPES = ['@node-rs/'];
const NODE_BUILTINS = new Set(builtinModules);

interface Import {
  /** The importing file, relative to the repository root with forward slashes. */
  file: string;
  /** The specifier as written. */
  specifier: string;
  /** A repository path for a relative specifier (`server/router.ts`), else the specifier itself. */
  target: string;
  /** `import type …` or `export type … from`: erased from the emitted JavaScript. */
  typeOnly: boolean;
  /** The imported names, for `import type { A, B } from`. */
  names: string[];
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') out.push(...sourceFiles(relative));
    } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(relative);
    }
  }
  return out;
}

/** The source with its comments replaced by spaces, so commented-out or documented imports do not count. */
function withoutComments(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') ((out += ' '), i++);
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      // Strings are kept as they are (specifiers are strings); only skipped over whole.
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function resolveTarget(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  const base = resolved.replace(/\.(js|jsx|mjs)$/, '');
  for (const candidate of [resolved, `${base}.ts`, `${base}.tsx`, `${base}.mts`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (existsSync(path.join(root, candidate)) && !candidate.endsWith('/')) return candidate;
  }
  return resolved;
}

function importsOf(file: string): Import[] {
  const code = withoutComments(readFileSync(path.join(root, file), 'utf8'));
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean, clause = '') => {
    const names = [...clause.matchAll(/\b([A-Za-z_$][\w$]*)\b(?!\s+as\b)/g)].map((m) => m[1]!).filter((n) => n !== 'type' && n !== 'as');
    found.push({ file, specifier, target: resolveTarget(file, specifier), typeOnly, names });
  };
  // import x from '…'; import { a, type b } from '…'; import type { A } from '…'; export { a } from '…'; export * from '…'
  for (const m of code.matchAll(/(?:^|[;\n}])\s*(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*(['"])([^'"]+)\4/g)) {
    add(m[5]!, Boolean(m[2]), m[3]!);
  }
  // import '…' (side effects only)
  for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(['"])([^'"]+)\1/g)) add(m[2]!, false);
  // import('…'), with a literal specifier
  for (const m of code.matchAll(/\bimport\s*\(\s*(['"`])([^'"`$]+)\1\s*\)/g)) add(m[2]!, false);
  return found;
}

const isTestFile = (file: string) => /\.test\.tsx?$/.test(file) || /(^|\/)test\//.test(file);
const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isNodeOnly = (specifier: string) =>
  specifier.startsWith('node:') ||
  NODE_BUILTINS.has(packageName(specifier)) ||
  SERVER_ONLY_PACKAGES.includes(packageName(specifier)) ||
  SERVER_ONLY_SCOPES.some((scope) => specifier.startsWith(scope));
const isUnder = (target: string, dir: string) => target.startsWith(`${dir}/`);

/** A domain's tRPC router: `router.ts`, `<name>-router.ts`, or a file in a `routers/` folder. */
const isRouterFile = (file: string) => /(^|\/|-)router\.ts$/.test(file) || /\/routers\//.test(file);

/** The one server import the browser packages may have: the router's type, which their type build inlines. */
const isAppRouterType = (i: Import) => i.typeOnly && i.target === 'server/router.ts' && i.names.length === 1 && i.names[0] === 'AppRouter';

interface Rule {
  name: string;
  /** The reason printed with each violation. */
  because: string;
  applies: (file: string) => boolean;
  forbids: (i: Import) => boolean;
}

const RULES: Rule[] = [
  {
    name: 'browser packages never import server/',
    because:
      'sdk/, react-ui/ and admin-web/ ship to browsers and to other apps; share code through contract/ (only `import type { AppRouter } from …/server/router.js` is allowed)',
    applies: (file) => BROWSER_PACKAGES.some((dir) => isUnder(file, dir)) && !isTestFile(file),
    forbids: (i) => isUnder(i.target, 'server') && !isAppRouterType(i),
  },
  {
    name: 'contract/ is browser-safe',
    because:
      'contract/ is imported by the server, the SDK, the UI kit and the console: it may import only itself and browser-safe packages (zod), never server/, sdk/, react-ui/, admin-web/, Node built-ins or server-only packages',
    applies: (file) => isUnder(file, 'contract') && !isTestFile(file),
    forbids: (i) => ['server', ...BROWSER_PACKAGES].some((dir) => isUnder(i.target, dir)) || isNodeOnly(i.target),
  },
  {
    name: 'contract/ tests stay out of the layers above',
    because: 'a contract test tests the contract alone (it may use Node to read files, but not the server or the packages built on the contract)',
    applies: (file) => isUnder(file, 'contract') && isTestFile(file),
    forbids: (i) => ['server', ...BROWSER_PACKAGES].some((dir) => isUnder(i.target, dir)),
  },
  {
    name: 'server/db knows no domain',
    because: 'the data layer sits below the domains: move what it needs into server/db/ (or pass it in)',
    applies: (file) => isUnder(file, 'server/db'),
    forbids: (i) => isUnder(i.target, 'server/domains'),
  },
  {
    name: 'services and queries know no tRPC',
    because: "only a domain's router.ts speaks tRPC; services take the caller from server/access/ and throw known errors from contract/errors/",
    applies: (file) => isUnder(file, 'server/domains') && !isRouterFile(file) && !isTestFile(file),
    forbids: (i) => isUnder(i.target, 'server/trpc'),
  },
  {
    name: 'server/access knows no tRPC',
    because: 'resolving the caller and the access policies sit below the tRPC layer, which reads the headers and calls them',
    applies: (file) => isUnder(file, 'server/access'),
    forbids: (i) => isUnder(i.target, 'server/trpc'),
  },
  {
    name: 'the server runs without async_hooks',
    because:
      "on Node 20, one AsyncLocalStorage that has ever run (or any createHook) turns on async_hooks' promise hooks for the whole process, and every promise of every request pays for them: refresh took 1.78 M instead of 1.11 M instructions per request (bench/instructions.ts). Pass the value along instead (an argument, the AuthContext, a WeakSet keyed by the transaction)",
    applies: (file) => isUnder(file, 'server') && !isTestFile(file),
    forbids: (i) => i.target === 'node:async_hooks' || i.target === 'async_hooks',
  },
];

const allImports = SOURCE_DIRS.flatMap(sourceFiles).flatMap(importsOf);

describe('the import graph', () => {
  it('is read from the whole source tree', () => {
    // A guard against a scanner that silently finds nothing.
    expect(allImports.length).toBeGreaterThan(500);
    expect(allImports).toContainEqual(expect.objectContaining({ file: 'sdk/transport.ts', target: 'server/router.ts', typeOnly: true, names: ['AppRouter'] }));
    expect(allImports).toContainEqual(expect.objectContaining({ file: 'contract/errors/known-errors.ts', target: 'contract/errors/known-error.ts' }));
  });

  it('follows the layering rules (every violation is listed, with its file and import)', () => {
    const violations: string[] = [];
    const allowedSeen = new Set<string>();
    for (const rule of RULES) {
      for (const i of allImports) {
        if (!rule.applies(i.file) || !rule.forbids(i)) continue;
        const edge = `${i.file} -> ${i.target}`;
        if (TEMPORARILY_ALLOWED.includes(edge)) {
          allowedSeen.add(edge);
          continue;
        }
        violations.push(`[${rule.name}] ${i.file} imports '${i.specifier}'${i.typeOnly ? ' (type-only)' : ''}: ${rule.because}`);
      }
    }
    const stale = TEMPORARILY_ALLOWED.filter((edge) => !allowedSeen.has(edge)).map(
      (edge) => `TEMPORARILY_ALLOWED lists ${edge}, which no longer occurs: remove it`,
    );
    expect([...violations, ...stale], [...violations, ...stale].join('\n')).toEqual([]);
  });
});
