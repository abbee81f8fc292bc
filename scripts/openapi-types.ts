import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { UNKNOWN, astToString, type SchemaObject } from 'openapi-typescript';
import { outputIsStale } from './build-output.js';

/**
 * Where the REST client's types are written (server/compat/rest-client.test.ts uses them). They are
 * derived from the committed openapi.json, so they are not committed (.gitignore): scripts/build.ts
 * writes them at install and start, `npm run typecheck` (pretypecheck) and `npm run openapi` refresh
 * them. openapi.json is what is committed and held to the router (server/trpc/contract.test.ts).
 */
export const OPENAPI_TYPES_URL = new URL('../server/compat/openapi-types.d.ts', import.meta.url);
const OPENAPI_URL = new URL('../openapi.json', import.meta.url);

/** What the types are made from: the document, this generator, and the locked openapi-typescript. */
const SOURCES = [OPENAPI_URL, new URL(import.meta.url), new URL('../package-lock.json', import.meta.url)];

const HEADER = ['// Generated from openapi.json by scripts/openapi-types.ts (openapi-typescript); not committed, do not edit.', ''].join('\n');

/**
 * The TypeScript types of the REST contract, as openapi-typescript generates them from the
 * committed openapi.json: `paths` (per route and method, its parameters, body and responses) and
 * `components`, for a typed openapi-fetch client.
 */
export async function generateOpenApiTypes(document: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(document) as Parameters<typeof openapiTS>[0], {
    transform: (schema, options) => (isRecursiveJsonValue(schema, options.path) ? UNKNOWN : undefined),
  });
  return `${HEADER}${astToString(ast)}`;
}

/**
 * Writes the types when they are missing or older than openapi.json (or `force`); returns whether it
 * wrote. Written to a temporary file and renamed, so a parallel typecheck never reads half a file.
 */
export async function writeOpenApiTypesIfStale(options: { force?: boolean } = {}): Promise<boolean> {
  const output = fileURLToPath(OPENAPI_TYPES_URL);
  if (
    !options.force &&
    !outputIsStale(
      output,
      SOURCES.map((source) => fileURLToPath(source)),
    )
  )
    return false;
  const temporary = `${output}.tmp-${process.pid}`;
  writeFileSync(temporary, await generateOpenApiTypes(readFileSync(OPENAPI_URL, 'utf8')));
  renameSync(temporary, output);
  return true;
}

/**
 * The JSON-value schemas (metadata fields; zod's z.json() becomes `__schemaN`: a string, number,
 * boolean, null, or an array or record of itself) are typed `unknown`: openapi-fetch's Writable<T>
 * cannot resolve the recursive alias and turns every body that holds one into
 * `{[x: string]: any} & {[x: string]: undefined}`, which no object satisfies.
 */
function isRecursiveJsonValue(schema: SchemaObject | { $ref: string }, path: string | undefined): boolean {
  if (!path || !('anyOf' in schema) || !Array.isArray(schema.anyOf)) return false;
  const self = path.slice(path.lastIndexOf('/') + 1);
  return schema.anyOf.some(
    (member) => 'type' in member && member.type === 'array' && 'items' in member && (member.items as { $ref?: string } | undefined)?.$ref?.endsWith(`/${self}`),
  );
}
