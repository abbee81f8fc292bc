import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');


describe('browser bundle of the SDK', () => {
  it('contains no server code besides the error catalogue, and reports its gzipped size', async () => {
    const result = await build({
      entryPoints: [path.join(root, 'sdk/index.ts')],
      absWorkingDir: root,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const serverModules = inputs.filter((input) => input.startsWith('server/'));
    expect(serverModules).toEqual([]);
    // The error catalogue comes from the browser-safe contract layer.
    expect(inputs).toContain('contract/errors/known-errors.ts');
    // Nothing of Node either, and no server-only packages.
    expect(inputs.filter((input) => /node_modules\/(@trpc\/server\/dist\/adapters|express|kysely|pg|zod|jose|@node-rs)\//.test(input))).toEqual([]);

    const code = result.outputFiles[0]!.contents;
    const gzipped = gzipSync(code, { level: 9 }).length;
    const sizes = new Map<string, number>();
    for (const [input, info] of Object.entries(Object.values(result.metafile.outputs)[0]!.inputs)) {
      const group = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? input.split('/')[0]!;
      sizes.set(group, (sizes.get(group) ?? 0) + info.bytesInOutput);
    }
    console.log(
      `SDK browser bundle: ${(code.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped ` +
        `(${[...sizes].map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} KiB`).join(', ')})`,
    );
    // Goal: at most a quarter of @stackframe/js; a regression guard well under that.
    expect(gzipped).toBeLessThan(40 * 1024);
  });
});
