import { createHash } from 'node:crypto';
import type { Message, Plugin } from 'esbuild';

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

/** A compiled bundle and, per bundle line, where its code came from (to report runtime errors at the owner's line). */
export interface CompiledScript {
  script: string;
  /** `bundleLine - 1` → segments `[generatedColumn, file, sourceLine]` (0-based column, 1-based line). */
  lines: [number, 'template' | 'theme' | null, number][][];
}

const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes a source map's `mappings` (base64 VLQ): only what line mapping needs. */
function decodeMappings(mappings: string, sources: string[]): CompiledScript['lines'] {
  const files = sources.map((source) => (source.endsWith('theme') ? 'theme' : source.endsWith('template') ? 'template' : null));
  const lines: CompiledScript['lines'] = [];
  let sourceIndex = 0;
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const line of mappings.split(';')) {
    const segments: CompiledScript['lines'][number] = [];
    let column = 0;
    for (const segment of line.split(',')) {
      if (!segment) continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = VLQ.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0] ?? 0;
      if (values.length >= 4) {
        sourceIndex += values[1]!;
        sourceLine += values[2]!;
        sourceColumn += values[3]!;
        segments.push([column, files[sourceIndex] ?? null, sourceLine + 1]);
      }
    }
    lines.push(segments);
  }
  void sourceColumn;
  return lines;
}

/** The owner's file and line for a bundle position (1-based line and column), when it maps to one. */
export function ownerPosition(compiled: CompiledScript, line: number, column: number | null): { file: 'template' | 'theme'; line: number } | null {
  const segments = compiled.lines[line - 1];
  if (!segments || segments.length === 0) return null;
  let best = segments[0]!;
  for (const segment of segments) if (segment[0] <= (column ?? 1) - 1) best = segment;
  return best[1] === null ? null : { file: best[1], line: best[2] };
}

/** Compiled scripts by source hash: a template version is compiled once, whatever it is sent to. */
const cache = new Map<string, Promise<CompiledScript>>();
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
export function compileOwnerSources(sources: OwnerSources): Promise<CompiledScript> {
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

async function compile(sources: OwnerSources): Promise<CompiledScript> {
  try {
    // esbuild is loaded on the first owner source compiled, not at start-up (issue 23, memory).
    const { build } = await import('esbuild');
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
      outfile: 'bundle.js',
      sourcemap: 'external',
      plugins: [ownerPlugin(sources)],
    });
    const script = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
    const map = JSON.parse(result.outputFiles.find((f) => f.path.endsWith('.map'))!.text) as { mappings: string; sources: string[] };
    return { script, lines: decodeMappings(map.mappings, map.sources) };
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (errors && errors.length > 0) throw new SandboxCompileError(toCompileError(errors[0]!));
    throw error;
  }
}
