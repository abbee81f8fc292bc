import openapiTS, { UNKNOWN, astToString, type SchemaObject } from 'openapi-typescript';

/** Where `npm run openapi` writes the REST client's types (server/compat/rest-client.test.ts uses them). */
export const OPENAPI_TYPES_URL = new URL('../server/compat/openapi-types.d.ts', import.meta.url);

const HEADER = [
  '// Generated from openapi.json by `npm run openapi` (openapi-typescript); do not edit.',
  '// server/compat/openapi-types.test.ts fails when this file differs from what openapi.json generates.',
  '',
].join('\n');

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
