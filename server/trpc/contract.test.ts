import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownErrorsByCode } from '../../contract/errors/known-errors.js';
import { appRouter } from '../router.js';
import { type Harness, startHarness } from '../test/harness.js';
import { buildOpenApiDocument } from './openapi.js';
import { collectRoutes } from './rest.js';

/**
 * The contract test (ARCHITECTURE.md "tRPC-first, REST projected"): the committed openapi.json is
 * exactly what the router generates, and every operation it lists is really served.
 */

const OPENAPI_URL = new URL('../../openapi.json', import.meta.url);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, any>;

/** Serialized exactly like scripts/generate-openapi.ts writes it. */
function generated(): string {
  return `${JSON.stringify(buildOpenApiDocument(appRouter), null, 2)}\n`;
}

function committed(): string {
  return readFileSync(OPENAPI_URL, 'utf8');
}

function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i]) return `line ${i + 1}:\n  committed: ${left[i] ?? '<end of file>'}\n  generated: ${right[i] ?? '<end of file>'}`;
  }
  return 'no line differs (whitespace at the end of the file?)';
}

function operations(doc: Json): { path: string; method: string; operation: Json }[] {
  const out: { path: string; method: string; operation: Json }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (HTTP_METHODS.includes(method)) out.push({ path, method, operation: operation as Json });
    }
  }
  return out;
}

describe('openapi.json is current', () => {
  it('equals the document generated from the router, byte for byte', () => {
    const want = generated();
    const have = committed();
    if (have !== want) {
      throw new Error(
        `openapi.json is out of date with the router. Run \`npm run openapi\` and commit the result.\nFirst difference at ${firstDifference(have, want)}`,
      );
    }
    expect(have).toBe(want);
  });

  it('is generated deterministically (two builds are identical)', () => {
    expect(generated()).toBe(generated());
  });
});

describe('openapi.json content', () => {
  const doc = JSON.parse(committed()) as Json;
  const ops = operations(doc);
  const routes = collectRoutes(appRouter);

  it('is an OpenAPI 3 document with operations and the Error schema', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBeTypeOf('string');
    expect(ops.length).toBeGreaterThan(20);
    expect(doc.components.schemas.Error).toMatchObject({
      type: 'object',
      required: ['code', 'error'],
      properties: { code: { type: 'string' }, error: { type: 'string' } },
    });
  });

  it('lists every REST procedure of the router, and nothing the router does not serve (besides /auth/oauth/token)', () => {
    const documented = new Set(ops.map((op) => `${op.method.toUpperCase()} ${op.path}`));
    const served = new Set(routes.map((route) => `${route.method} ${route.template}`));
    for (const route of served) expect(documented, route).toContain(route);
    for (const op of documented) {
      if (op === 'POST /auth/oauth/token') continue;
      expect(served, op).toContain(op);
    }
  });

  it('gives every operation a unique operationId, a summary and tags', () => {
    const ids = ops.map((op) => op.operation.operationId);
    for (const { path, method, operation } of ops) {
      expect(operation.operationId, `${method} ${path}`).toBeTypeOf('string');
      expect(operation.summary, `${method} ${path}`).toBeTypeOf('string');
      expect(operation.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares exactly one 2xx response and the default error schema on every operation', () => {
    for (const { path, method, operation } of ops) {
      const label = `${method.toUpperCase()} ${path}`;
      const codes = Object.keys(operation.responses);
      const success = codes.filter((code) => /^2\d\d$/.test(code));
      expect(success, label).toHaveLength(1);
      expect(operation.responses[success[0]!].content?.['application/json']?.schema, label).toBeDefined();
      expect(operation.responses.default?.content?.['application/json']?.schema, label).toEqual({ $ref: '#/components/schemas/Error' });
      // Besides: one response per error status listing its catalogued codes (openapi-errors.ts), all
      // with the Error schema; the generator's own error responses are not what the server sends.
      for (const code of codes.filter((c) => !success.includes(c) && c !== 'default')) {
        expect(code, label).toMatch(/^[45]\d\d$/);
        expect(operation.responses[code].content?.['application/json']?.schema, label).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('documents 201 for every create (meta.successStatus 201) and 200 for everything else', () => {
    const creates = routes.filter((route) => route.successStatus === 201);
    expect(creates.length).toBeGreaterThan(0);
    for (const route of routes) {
      const operation = doc.paths[route.template]?.[route.method.toLowerCase()];
      const label = `${route.method} ${route.template}`;
      expect(operation, label).toBeDefined();
      expect(
        Object.keys(operation.responses).filter((code) => /^2\d\d$/.test(code)),
        label,
      ).toEqual([String(route.successStatus)]);
    }
    // Every create is a POST.
    for (const route of creates) expect(route.method).toBe('POST');
  });

  it('declares every {param} of a path as a required path parameter, and no others', () => {
    for (const { path, method, operation } of ops) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual([...inPath].sort());
      for (const p of declared) expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
    }
  });

  it('uses snake_case wire names for parameters and body properties', () => {
    for (const { path, method, operation } of ops) {
      for (const p of (operation.parameters ?? []) as Json[]) expect(p.name, `${method} ${path}`).toMatch(/^[a-z][a-z0-9_]*$/);
      const content = operation.requestBody?.content as Json | undefined;
      for (const media of Object.values(content ?? {})) {
        for (const name of Object.keys((media as Json).schema?.properties ?? {})) expect(name, `${method} ${path}`).toMatch(/^[a-z][a-z0-9_]*$/);
      }
    }
  });

  it('has kebab-case paths under no version prefix (the server is /api/v1)', () => {
    for (const { path } of ops) {
      for (const segment of path.split('/').filter(Boolean)) expect(segment, path).toMatch(/^(\{[a-z_]+\}|[a-z0-9.-]+(\.json)?)$/);
      expect(path.startsWith('/api')).toBe(false);
    }
  });
});

describe('every documented operation is served', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('answers each path and method without credentials with a catalogued 4xx (or a public 2xx), never a missing route or a 5xx', async () => {
    const doc = JSON.parse(committed()) as Json;
    const results: string[] = [];
    for (const { path, method } of operations(doc)) {
      const concrete = path.replace(/\{\w+\}/g, () => randomUUID());
      const upper = method.toUpperCase();
      const res = await h.call(concrete, { method: upper, ...(upper === 'GET' || upper === 'DELETE' ? {} : { body: {} }) });
      const label = `${upper} ${path} → ${res.status} ${JSON.stringify(res.body)}`;
      results.push(label);
      expect(res.status, label).toBeLessThan(500);
      expect(res.status, label).not.toBe(405);
      expect(res.body?.code, label).not.toBe('NOT_FOUND');
      expect(res.body?.code, label).not.toBe('METHOD_NOT_ALLOWED');
      if (res.status >= 400) {
        expect(res.headers.get('x-latch-known-error'), label).toBe(res.body.code);
        expect(knownErrorsByCode.get(res.body.code)?.status, label).toBe(res.status);
        expect(
          Object.keys(res.body).every((key) => ['code', 'details', 'error'].includes(key)),
          label,
        ).toBe(true);
      }
    }
    expect(results.length).toBe(operations(doc).length);
  });

  it('serves every operation over tRPC too, under the procedure name', async () => {
    // The same procedures, called the tRPC way without credentials: known errors, never NOT_FOUND.
    for (const route of collectRoutes(appRouter)) {
      const input = encodeURIComponent(JSON.stringify(Object.fromEntries(route.segments.flatMap((s) => ('param' in s ? [[s.param, randomUUID()]] : [])))));
      const isQuery = route.method === 'GET';
      const res = isQuery
        ? await h.call(`/api/trpc/${route.procedurePath}?input=${input}`, { method: 'GET' })
        : await h.call(`/api/trpc/${route.procedurePath}`, { method: 'POST', body: JSON.parse(decodeURIComponent(input)) });
      const label = `${route.procedurePath} → ${res.status} ${JSON.stringify(res.body)}`;
      expect(res.status, label).toBeLessThan(500);
      expect(res.headers.get('x-latch-known-error') ?? 'none', label).not.toBe('NOT_FOUND');
      expect(res.headers.get('x-latch-known-error') ?? 'none', label).not.toBe('METHOD_NOT_ALLOWED');
    }
  });
});
