import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleForBrowser } from '../server/test/browser-bundle.js';
import { buildAdminInto } from './build.js';

/**
 * The console shares the wire schemas and error catalogue through the browser-safe contract layer
 * (contract/), never copies them, and never bundles server code: no database, crypto, mail or HTTP
 * server module may reach the browser.
 */

describe('browser bundle of the admin console', () => {
  it('contains no server module, only the contract (schemas, config defaults, error catalogue), and reports its size', async () => {
    const {
      inputs,
      js,
      gzippedBytes: gzipped,
    } = await bundleForBrowser('admin-web/main.tsx', {
      outdir: 'out',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const serverModules = inputs.filter((input) => input.startsWith('server/'));
    expect(serverModules).toEqual([]);
    expect(inputs).toContain('contract/schemas/users.ts');
    expect(
      inputs.filter(
        (input) =>
          /node_modules\/(@trpc\/server\/dist\/adapters|express|kysely|pg|jose|@node-rs|nodemailer|@electric-sql)\//.test(input) || input.startsWith('node:'),
      ),
    ).toEqual([]);

    // esbuild's figure, a little above Vite's own output (dist/admin-web/assets); a regression guard
    // on everything the console can load (the email editor's CodeMirror included).
    console.log(`Admin console bundle (esbuild, one chunk): ${(js.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
    expect(gzipped).toBeLessThan(420 * 1024);
  });

  it('keeps the email editor (CodeMirror) out of the first load: it is a chunk of its own, loaded by the email editor page', async () => {
    const { metafile, js, gzippedBytes } = await bundleForBrowser('admin-web/main.tsx', {
      outdir: 'out',
      splitting: true,
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const outputs = Object.entries(metafile.outputs);
    // What loads up front: the entry chunk and the chunks it imports statically (bundleForBrowser's js).
    const upFront = new Set<string>();
    const visit = (name: string) => {
      if (upFront.has(name)) return;
      upFront.add(name);
      for (const imported of metafile.outputs[name]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
    };
    visit(outputs.find(([, output]) => output.entryPoint)![0]);
    const upFrontInputs = [...upFront].flatMap((name) => Object.keys(metafile.outputs[name]!.inputs));
    expect(upFrontInputs.filter((input) => input.includes('@codemirror/') || input.includes('@lezer/'))).toEqual([]);
    // CodeMirror's chunk is reached only through the editor module's dynamic import.
    const editorChunk = outputs.find(([, output]) => Object.keys(output.inputs).includes('admin-web/editor/code-editor.tsx'));
    expect(editorChunk).toBeDefined();
    const withCodeMirror = outputs.filter(([, output]) => Object.keys(output.inputs).some((input) => input.includes('@codemirror/view')));
    expect(withCodeMirror.map(([name]) => name)).not.toContain(
      outputs.find(([, output]) => Object.keys(output.inputs).includes('admin-web/routes/project.tsx'))![0],
    );
    console.log(
      `Admin console first load (esbuild, entry chunk and its static imports): ${(js.length / 1024).toFixed(1)} KiB minified, ${(gzippedBytes / 1024).toFixed(1)} KiB gzipped`,
    );
    // 209 KiB with the email editor, payments and owners pages (React, the SDK and every page but the
    // editor load up front); CodeMirror's ~130 KiB stays in its own chunk.
    expect(gzippedBytes).toBeLessThan(230 * 1024);
  });

  it(
    'builds with production JSX even when started from the tests (NODE_ENV=test): a test run that rebuilds a stale console must not leave a broken one for npm start',
    { timeout: 60_000 },
    async () => {
      expect(process.env.NODE_ENV).toBe('test');
      const outDir = mkdtempSync(path.join(tmpdir(), 'latch-admin-build-'));
      try {
        await buildAdminInto(outDir);
        const assets = readdirSync(path.join(outDir, 'assets')).filter((name) => name.endsWith('.js'));
        expect(assets.length).toBeGreaterThan(0);
        const code = assets.map((name) => readFileSync(path.join(outDir, 'assets', name), 'utf8')).join('\n');
        expect(code).not.toContain('jsxDEV');
        expect(process.env.NODE_ENV).toBe('test');
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    },
  );
});
