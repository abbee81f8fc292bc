import { createHash } from 'node:crypto';
import { build, type Message, type Plugin } from 'esbuild';

/**
 * Compiles an owner's TSX (a template or a draft, and optionally a theme) into one script for the
 * sandbox. Imports are an allowlist: `react` (and its JSX runtime), `@react-email/components` and
 * `@latch/emails`, each resolved to a shim that reads the sandbox prelude's globals. Anything else
 * (`node:fs`, a relative path, an npm package) is refused at compile time with its line, so no
 * module the owner names is ever read from the server's disk.
 */

export interface CompileError {
  message: string;
  /** 1-based line in the owner's source, when esbuild knows it. */
  line: number | null;
  file: 'template' | 'theme' | null;
}

export class SandboxCompileError extends Error {
  constructor(readonly detail: CompileError) {
    super(detail.line === null ? detail.message : `${detail.file ?? 'source'} line ${detail.line}: ${detail.message}`);
  }
}

const SHIMS: Record<string, string> = {
  react: 'module.exports = globalThis.__latch.react;',
  'react/jsx-runtime': 'module.exports = globalThis.__latch.jsxRuntime;',
  'react/jsx-dev-runtime': 'module.exports = globalThis.__latch.jsxRuntime;',
  '@react-email/components': 'module.exports = globalThis.__latch.components;',
  '@latch/emails': 'module.exports = globalThis.__latch.emails;',
};

export interface OwnerSources {
  template: string;
  theme: string | null;
}

function ownerPlugin(sources: OwnerSources): Plugin {
  return {
    name: 'latch-owner-sources',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return { path: 'entry', namespace: 'latch-entry' };
        if (args.path === 'latch:template') return { path: 'template', namespace: 'owner' };
        if (args.path === 'latch:theme') return { path: 'theme', namespace: 'owner' };
        if (Object.hasOwn(SHIMS, args.path)) return { path: args.path, namespace: 'shim' };
        return {
          errors: [
            {
              text: `Import of "${args.path}" is not allowed: only react, @react-email/components and @latch/emails can be imported`,
            },
          ],
        };
      });
      b.onLoad({ filter: /.*/, namespace: 'latch-entry' }, () => ({
        contents: `import * as template from 'latch:template';\n${sources.theme === null ? 'const theme = null;' : "import * as theme from 'latch:theme';"}\nglobalThis.__latchModules = { template, theme };`,
        loader: 'js',
      }));
      b.onLoad({ filter: /.*/, namespace: 'owner' }, (args) => ({
        contents: args.path === 'theme' ? (sources.theme ?? '') : sources.template,
        loader: 'tsx',
      }));
      b.onLoad({ filter: /.*/, namespace: 'shim' }, (args) => ({ contents: SHIMS[args.path], loader: 'js' }));
    },
  };
}

function toCompileError(message: Message): CompileError {
  const file = message.location?.file.endsWith('theme') ? 'theme' : message.location?.file.endsWith('template') ? 'template' : null;
  return { message: message.text, line: message.location?.line ?? null, file };
}

/** Compiled scripts by source hash: a template version is compiled once, whatever it is sent to. */
const cache = new Map<string, Promise<string>>();
const CACHE_LIMIT = 200;

export function sourceHash(sources: OwnerSources): string {
  return createHash('sha256')
    .update(sources.template)
    .update('\0')
    .update(sources.theme ?? '\0none')
    .digest('hex');
}

/**
 * The script for these sources, from the cache when compiled before.
 * @throws SandboxCompileError with the first error's line.
 */
export function compileOwnerSources(sources: OwnerSources): Promise<string> {
  const key = sourceHash(sources);
  const hit = cache.get(key);
  if (hit) {
    // Refresh its place: the map's order is the eviction order.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const compiled = compile(sources);
  cache.set(key, compiled);
  // A failed compile is not kept: the cache holds scripts, and errors are cheap to recompute.
  compiled.catch(() => cache.delete(key));
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return compiled;
}

async function compile(sources: OwnerSources): Promise<string> {
  try {
    const result = await build({
      entryPoints: ['entry'],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'neutral',
      target: 'es2020',
      jsx: 'automatic',
      jsxImportSource: 'react',
      logLevel: 'silent',
      plugins: [ownerPlugin(sources)],
    });
    return result.outputFiles[0]!.text;
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (errors && errors.length > 0) throw new SandboxCompileError(toCompileError(errors[0]!));
    throw error;
  }
}
