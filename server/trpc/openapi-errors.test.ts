import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KnownErrors } from '../../contract/errors/known-errors.js';

/**
 * The reference's error codes cannot fall behind the code: every catalogued error a domain's files
 * throw (`KnownErrors.X`) is listed on at least one of that domain's operations in openapi.json
 * (openapi-errors.ts ERRORS_BY_TAG), and every operation lists at least SCHEMA_ERROR.
 */
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const doc = JSON.parse(readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }> }>>;
};

function documentedCodes(tags: string[]): Set<string> {
  const codes = new Set<string>();
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      if (!operation.tags?.some((t) => tags.includes(t))) continue;
      for (const response of Object.values(operation.responses)) {
        for (const code of Object.keys(response.content?.['application/json']?.examples ?? {})) codes.add(code);
      }
    }
  }
  return codes;
}

const DOMAINS = path.join(ROOT, 'server/domains');

describe('documented error codes', () => {
  for (const domain of readdirSync(DOMAINS)) {
    const files = readdirSync(path.join(DOMAINS, domain)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const source = files.map((f) => readFileSync(path.join(DOMAINS, domain, f), 'utf8')).join('\n');
    const tags = [...source.matchAll(/restOperations\(\[([^\]]*)\]/g)].flatMap((m) => [...m[1]!.matchAll(/'([^']+)'/g)].map((t) => t[1]!));
    if (tags.length === 0) continue;
    it(`${domain}: every code its files throw is on one of its operations (${tags.join(', ')})`, () => {
      const thrown = new Set([...source.matchAll(/KnownErrors\.(\w+)/g)].map((m) => KnownErrors[m[1] as keyof typeof KnownErrors]?.code ?? m[1]!));
      const documented = documentedCodes(tags);
      expect([...thrown].filter((code) => !documented.has(code))).toEqual([]);
    });
  }

  it('every operation lists SCHEMA_ERROR and, when it needs credentials, the credential checks', () => {
    for (const [p, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const codes = new Set(Object.values(operation.responses).flatMap((r) => Object.keys(r.content?.['application/json']?.examples ?? {})));
        expect(codes.has('SCHEMA_ERROR'), `${method} ${p}`).toBe(true);
        if ((operation as { security?: unknown[] }).security?.length) expect(codes.has('INSUFFICIENT_ACCESS_TYPE'), `${method} ${p}`).toBe(true);
      }
    }
  });
});
