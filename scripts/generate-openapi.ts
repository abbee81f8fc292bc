import { writeFileSync } from 'node:fs';
import { appRouter } from '../server/router.js';
import { buildOpenApiDocument } from '../server/trpc/openapi.js';
import { writeOpenApiTypesIfStale } from './openapi-types.js';

/** `npm run openapi`: regenerates the committed REST contract from the router, then its (uncommitted) TypeScript types. */
const OPENAPI_URL = new URL('../openapi.json', import.meta.url);
writeFileSync(OPENAPI_URL, `${JSON.stringify(buildOpenApiDocument(appRouter), null, 2)}\n`);
console.log('openapi.json written');
await writeOpenApiTypesIfStale({ force: true });
console.log('server/compat/openapi-types.d.ts written');
