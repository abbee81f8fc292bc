import { readFileSync, writeFileSync } from 'node:fs';
import { appRouter } from '../server/router.js';
import { buildOpenApiDocument } from '../server/trpc/openapi.js';
import { OPENAPI_TYPES_URL, generateOpenApiTypes } from './openapi-types.js';

/** `npm run openapi`: regenerates the committed REST contract from the router, then its TypeScript types. */
const OPENAPI_URL = new URL('../openapi.json', import.meta.url);
writeFileSync(OPENAPI_URL, `${JSON.stringify(buildOpenApiDocument(appRouter), null, 2)}\n`);
console.log('openapi.json written');
writeFileSync(OPENAPI_TYPES_URL, await generateOpenApiTypes(readFileSync(OPENAPI_URL, 'utf8')));
console.log('server/compat/openapi-types.d.ts written');
