import { describe, expect, it } from 'vitest';
import { bundleForBrowser } from '../server/test/browser-bundle.js';

/**
 * The UI kit runs in the host app's browser: bundled from its entry for the browser, it holds the
 * SDK and the contract (validation rules, error catalogue), never a server module, a Node built-in
 * or a server-only package.
 */
describe('browser bundle of the UI kit', () => {
  it('contains no server module and no Node-only package, and reports its size', async () => {
    const {
      inputs,
      js: code,
      gzippedBytes: gzipped,
    } = await bundleForBrowser('react-ui/index.ts', {
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
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

    console.log(`UI kit browser bundle (with React and the SDK): ${(code.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  });
});
