import { writeFileSync } from 'node:fs';
import { appRouter } from '../server/router.js';
import { buildOpenApiDocument } from '../server/trpc/openapi.js';

/** `npm run openapi`: regenerates the committed REST contract from the router. */
writeFileSync(new URL('../openapi.json', import.meta.url), `${JSON.stringify(buildOpenApiDocument(appRouter), null, 2)}\n`);
console.log('openapi.json written');
