/**
 * Builds and packs the two installable packages: `@latch/sdk` (sdk/) and `@latch/react` (react-ui/).
 *
 * - JavaScript: esbuild bundles each entry to `<package>/dist/` as ESM. The SDK's bundle holds the
 *   parts of the browser-safe `contract/` it uses (the error catalogue, validation constants); the
 *   UI kit's bundle imports the SDK as the package `@latch/sdk` (never a copy: the error classes
 *   must be the SDK's own for `instanceof`). npm dependencies stay imports.
 * - Declarations: one `tsc --emitDeclarationOnly` pass over both entries (one program: the server's
 *   router is checked once), then each package keeps only the `.d.ts` files its entry reaches.
 *   The SDK's types name `type AppRouter` from the server: instead of shipping the server's
 *   declarations (they reach Kysely, express and the whole service layer), the emitted
 *   `server/router.d.ts` is already the router's type written out (every procedure's input and
 *   output as plain object types); it is kept as the one server file, with its three references to
 *   server internals (request context, meta, zod's JSON type) replaced by self-contained types. The
 *   build fails if anything else of `server/` is reached, so the tarball type-checks on its own.
 *
 * `tsx scripts/packages.ts build` (npm run build:packages), `tsx scripts/packages.ts pack [dir]`
 * (npm run pack:packages: builds, then `npm pack` both into `dir`, default `.packages/`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const typesOut = path.join(root, 'node_modules', '.cache', 'latch-package-types');

interface PackageSpec {
  dir: 'sdk' | 'react-ui';
  /** Prefixes of the `.d.ts` files it ships (relative to the repository root). */
  ships: string[];
}

const SDK: PackageSpec = { dir: 'sdk', ships: ['sdk/', 'contract/', 'server/router.d.ts'] };
const REACT: PackageSpec = { dir: 'react-ui', ships: ['react-ui/'] };

function dependenciesOf(dir: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
}

/** The UI kit's imports of the SDK become imports of the package; any other path into sdk/ is refused. */
const sdkAsPackage: Plugin = {
  name: 'latch-sdk-as-package',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /\/sdk\// }, (args) => {
      if (!args.importer.startsWith(path.join(root, 'react-ui'))) return undefined;
      if (!/^(\.\.\/)+sdk\/index\.js$/.test(args.path)) return { errors: [{ text: `The UI kit imports the SDK only through sdk/index.js, not ${args.path}` }] };
      return { path: '@latch/sdk', external: true };
    });
  },
};

async function buildJs(spec: PackageSpec): Promise<void> {
  const external = dependenciesOf(spec.dir).flatMap((name) => [name, `${name}/*`]);
  await build({
    entryPoints: [path.join(root, spec.dir, 'index.ts')],
    absWorkingDir: root,
    outdir: path.join(root, spec.dir, 'dist'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    external,
    plugins: [sdkAsPackage],
    sourcemap: true,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  });
}

function emitDeclarations(): void {
  fs.rmSync(typesOut, { recursive: true, force: true });
  const config = path.join(typesOut, '..', 'latch-package-types.tsconfig.json');
  fs.mkdirSync(path.dirname(config), { recursive: true });
  fs.writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(root, 'tsconfig.json'),
      compilerOptions: { noEmit: false, declaration: true, emitDeclarationOnly: true, noCheck: true, outDir: typesOut, rootDir: root, types: [] },
      include: [],
      files: [path.join(root, 'sdk/index.ts'), path.join(root, 'react-ui/index.ts')],
    }),
  );
  execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', config], { stdio: 'inherit' });
}

/** The specifiers a declaration file imports (doc comments, which quote examples, are skipped). */
function importsOf(text: string): string[] {
  const code = text.replace(/^\s*\/\*[\s\S]*?\*\//gm, '');
  return [...code.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]!);
}

/**
 * Every emitted `.d.ts` reached from `entry` (relative paths only), as root-relative paths; files
 * under `stopAt` are listed but not followed (the UI kit stops at the SDK, a package of its own).
 */
function declarationClosure(entry: string, stopAt?: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file === 'server/router.d.ts' || (stopAt && file.startsWith(stopAt))) continue; // the router is rewritten to stand alone below
    for (const specifier of importsOf(fs.readFileSync(path.join(typesOut, file), 'utf8'))) {
      if (specifier.startsWith('.')) queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.d.ts'));
    }
  }
  return seen;
}

/** The router's emitted type, made self-contained (see the module comment). */
function standaloneRouterDeclaration(): string {
  const text = fs
    .readFileSync(path.join(typesOut, 'server/router.d.ts'), 'utf8')
    .replaceAll('import("./trpc/context.js").RequestContext', 'object')
    .replaceAll('import("./trpc/init.js").LatchMeta', 'object')
    .replaceAll('import("zod").JSONType', 'JSONType');
  const left = importsOf(text).filter((specifier) => specifier !== '@trpc/server');
  if (left.length > 0) throw new Error(`server/router.d.ts still imports ${left.join(', ')}: teach scripts/packages.ts to replace them`);
  return (
    "// Generated by scripts/packages.ts: the type of the Latch server's tRPC router (inputs and outputs of\n" +
    "// every procedure), for the SDK's typed calls. Types only: no server code is in this package.\n" +
    'type JSONType = string | number | boolean | null | JSONType[] | { [key: string]: JSONType };\n' +
    text
  );
}

function shipDeclarations(spec: PackageSpec, files: Set<string>): void {
  const out = path.join(root, spec.dir, 'dist', 'types');
  for (const file of files) {
    if (!spec.ships.some((prefix) => file.startsWith(prefix))) continue;
    let text = file === 'server/router.d.ts' ? standaloneRouterDeclaration() : fs.readFileSync(path.join(typesOut, file), 'utf8');
    if (spec === REACT) {
      // The UI kit's declarations name the SDK and the contract through the installed @latch/sdk.
      text = text.replace(/(['"])(?:\.\.\/)+sdk\/index\.js\1/g, "'@latch/sdk'").replace(/(['"])(?:\.\.\/)+contract\/([^'"]+)\1/g, "'@latch/sdk/contract/$2'");
    }
    fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
    fs.writeFileSync(path.join(out, file), text);
  }
}

export async function buildPackages({ declarations = true } = {}): Promise<void> {
  for (const spec of [SDK, REACT]) fs.rmSync(path.join(root, spec.dir, 'dist'), { recursive: true, force: true });
  if (declarations || !fs.existsSync(typesOut)) emitDeclarations();
  const sdkFiles = declarationClosure('sdk/index.d.ts');
  const reactFiles = declarationClosure('react-ui/index.d.ts', 'sdk/');
  const reachedServer = [...sdkFiles, ...reactFiles].filter((file) => file.startsWith('server/') && file !== 'server/router.d.ts');
  if (reachedServer.length > 0) throw new Error(`The packages' declarations reach server code: ${[...new Set(reachedServer)].join(', ')}`);
  const strayReact = [...reactFiles].filter((file) => file.startsWith('sdk/') && file !== 'sdk/index.d.ts');
  if (strayReact.length > 0) throw new Error(`The UI kit's declarations reach SDK internals: ${strayReact.join(', ')}`);
  // The SDK ships every contract declaration either package names (the UI kit reaches them through it).
  shipDeclarations(SDK, new Set([...sdkFiles, ...[...reactFiles].filter((file) => file.startsWith('contract/'))]));
  shipDeclarations(REACT, reactFiles);
  await Promise.all([buildJs(SDK), buildJs(REACT)]);
}

/** Builds, then packs both packages into `destination`; returns the tarballs' paths (SDK first). */
export async function packPackages(destination: string): Promise<{ sdk: string; react: string }> {
  await buildPackages();
  fs.mkdirSync(destination, { recursive: true });
  const pack = (dir: string) => {
    const [result] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: path.join(root, dir), encoding: 'utf8' }),
    ) as {
      filename: string;
    }[];
    return path.join(destination, result!.filename);
  };
  return { sdk: pack('sdk'), react: pack('react-ui') };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, destination] = process.argv.slice(2);
  if (command === 'build') await buildPackages();
  else if (command === 'pack') console.log(await packPackages(path.resolve(destination ?? path.join(root, '.packages'))));
  else throw new Error('usage: tsx scripts/packages.ts build | pack [dir]');
}
