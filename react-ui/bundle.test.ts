import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The UI kit runs in the host app's browser: bundled from its entry for the browser, it holds the
 * SDK and the contract (validation rules, error catalogue), never a server module, a Node built-in
 * or a server-only package.
 */
describe('browser bundle of the UI kit', () => {
  it('contains no server module and no Node-only package, and reports its size', async () => {
    const result = await build({
      entryPoints: [path.join(root, 'react-ui/index.ts')],
      absWorkingDir: root,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      metafile: true,
      write: false,
      jsx: 'automatic',
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => input.startsWith('server/'))).toEqual([]);
    expect(inputs).toContain('react-ui/index.ts');
    expect(inputs).toContain('contract/errors/known-errors.ts');
    expect(
      inputs.filter(
        (input) =>
          input.startsWith('node:') ||
          /node_modules\/(@trpc\/server\/dist\/adapters|express|kysely|pg|jose|@node-rs|nodemailer|@electric-sql|@react-email)\//.test(input),
      ),
    ).toEqual([]);

    const code = result.outputFiles[0]!.contents;
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`UI kit browser bundle (with React and the SDK): ${(code.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  });
});
