import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_TYPES_URL, generateOpenApiTypes } from '../../scripts/openapi-types.js';

/**
 * The committed REST client types (openapi-types.d.ts) are exactly what openapi-typescript generates
 * from the committed openapi.json; the contract test (trpc/contract.test.ts) holds openapi.json to
 * the router, so the types cannot drift from the server either. `npm run openapi` rewrites both.
 */
describe('openapi-types.d.ts is current', () => {
  it('equals what openapi-typescript generates from openapi.json', { timeout: 240_000 }, async () => {
    const committed = readFileSync(OPENAPI_TYPES_URL, 'utf8');
    const generated = await generateOpenApiTypes(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    if (committed !== generated) {
      const [a, b] = [committed.split('\n'), generated.split('\n')];
      const line = a.findIndex((text, i) => text !== b[i]);
      expect.fail(
        `server/compat/openapi-types.d.ts is stale (run npm run openapi); first difference at line ${line + 1}:\n  committed: ${a[line]}\n  generated: ${b[line]}`,
      );
    }
  });
});
