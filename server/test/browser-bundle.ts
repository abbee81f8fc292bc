/**
 * Bundles one of the browser packages' entries the way a host app's bundler would (esbuild, for
 * the browser, minified, with a metafile), for the bundle-purity tests of the SDK, the UI kit and
 * the console: which source files and packages reach the browser, and how large it gets.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BrowserBundle {
  /** Every source file and package file that went in, relative to the repository root. */
  inputs: string[];
  metafile: Metafile;
  /**
   * The JavaScript that loads up front: the entry's chunk and, with `splitting`, every chunk it
   * imports statically (transitively); chunks reached only by `import()` load later and are left out.
   */
  js: Uint8Array;
  /** The gzipped size of that code, each chunk gzipped on its own as a browser downloads it. */
  gzippedBytes: number;
}

/** `entry` is relative to the repository root (`sdk/index.ts`); `options` add to the defaults. */
export async function bundleForBrowser(entry: string, options: BuildOptions = {}): Promise<BrowserBundle> {
  const result = await build({
    entryPoints: [path.join(root, entry)],
    absWorkingDir: root,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
    ...options,
    metafile: true,
    write: false,
  });
  const { outputFiles, metafile } = result;
  if (!outputFiles || !metafile) throw new Error('esbuild returned no output files or no metafile');
  const entryOutput = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint)?.[0];
  const fileOf = (output: string) => outputFiles.find((file) => file.path.endsWith(output));
  const upFront: string[] = [];
  const visit = (output: string) => {
    if (upFront.includes(output)) return;
    upFront.push(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  if (entryOutput) visit(entryOutput);
  const files = upFront.map(fileOf).filter((file) => file !== undefined);
  if (files.length === 0) files.push(outputFiles.find((file) => file.path.endsWith('.js')) ?? outputFiles[0]!);
  const js = Buffer.concat(files.map((file) => file.contents));
  return {
    inputs: Object.keys(metafile.inputs),
    metafile,
    js,
    gzippedBytes: files.reduce((total, file) => total + gzipSync(file.contents, { level: 9 }).length, 0),
  };
}
