import { generateOpenApiDocument } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import { collectRoutes } from './rest.js';
import { procedureAccess } from './procedures.js';
import { SECURITY_DESCRIPTION, SECURITY_HEADERS, securityRequirements } from './openapi-security.js';
import { errorExamples, errorResponses, operationErrorCodes } from './openapi-errors.js';
import { exampleFor } from './openapi-examples.js';

type Json = Record<string, unknown>;

/** Any other failure (a 500, a proxy's 413) has the same body. */
const DEFAULT_ERROR = {
  description: 'Any other error, with the same body',
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      examples: { INTERNAL_SERVER_ERROR: { $ref: '#/components/examples/INTERNAL_SERVER_ERROR' } },
    },
  },
};

const TOKEN_ERRORS = [
  'SCHEMA_ERROR',
  'BODY_PARSING_ERROR',
  'INVALID_OAUTH_CLIENT_ID_OR_SECRET',
  'INVALID_AUTHORIZATION_CODE',
  'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
] as const;

const ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'error'],
  properties: {
    code: { type: 'string', description: 'Catalogued error code; also in the x-latch-known-error header.' },
    details: { type: 'object', additionalProperties: true },
    error: { type: 'string', description: 'A message for humans.' },
  },
};

/**
 * The REST contract, generated from the router by trpc-to-openapi and then adjusted to what the
 * server really does: 201 for creates, our error body, the x-latch-* security headers, and the
 * OAuth token endpoint (a plain express route, since it takes form bodies).
 */
export function buildOpenApiDocument(router: AnyRouter): Json {
  const doc = generateOpenApiDocument(router, {
    title: 'Latch API',
    version: '1.0.0',
    description: `Authentication and user management. Every operation is also available over tRPC at /api/trpc.\n\n${SECURITY_DESCRIPTION}`,
    baseUrl: '/api/v1',
    securitySchemes: Object.fromEntries(
      Object.entries(SECURITY_HEADERS).map(([name, description]) => [name, { type: 'apiKey', in: 'header', name, description }]),
    ),
  }) as unknown as Json;

  const routes = new Map(collectRoutes(router).map((r) => [`${r.method.toLowerCase()} ${r.template}`, r]));
  const components = (doc.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Json;
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const mentioned = new Set<string>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const route = routes.get(`${method} ${path}`);
      const access = route ? procedureAccess(route.procedure as never) : null;
      const responses = operation.responses as Record<string, Json>;
      const status = route?.successStatus ?? 200;
      if (status !== 200 && responses['200']) {
        responses[String(status)] = responses['200'];
        delete responses['200'];
      }
      for (const code of Object.keys(responses)) {
        if (code !== '200' && code !== '201') delete responses[code];
      }
      addExamples(operation, schemas);
      // A body with no required field may be left out: the dispatcher reads a missing body as {}
      // (rest.ts), as the README's `curl -X POST …/refresh` does. trpc-to-openapi marks every body required.
      const requestBody = operation.requestBody as Json | undefined;
      const bodySchema = (requestBody?.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json | undefined;
      if (requestBody && bodySchema && !(Array.isArray(bodySchema.required) && bodySchema.required.length > 0)) requestBody.required = false;
      const codes = operationErrorCodes(access, (operation.tags ?? []) as string[], path, operation.requestBody !== undefined);
      Object.assign(responses, errorResponses(codes));
      responses.default = DEFAULT_ERROR;
      codes.forEach((code) => mentioned.add(code));
      operation.security = securityRequirements(access, path);
      operation['x-codeSamples'] = [{ lang: 'curl', source: curlSample(method, path, operation) }];
    }
  }
  paths['/auth/oauth/token'] = {
    post: {
      operationId: 'auth-oauthToken',
      summary:
        'OAuth 2.0 token endpoint (grant_type=refresh_token, or authorization_code with code, code_verifier and redirect_uri after /auth/oauth/authorize); client_id is the project id, client_secret its publishable key (body or HTTP Basic)',
      tags: ['Sessions'],
      requestBody: {
        required: true,
        content: Object.fromEntries(
          ['application/x-www-form-urlencoded', 'application/json'].map((type) => [
            type,
            {
              schema: {
                type: 'object',
                required: ['grant_type'],
                properties: {
                  grant_type: { type: 'string', enum: ['refresh_token', 'authorization_code'] },
                  refresh_token: { type: 'string', description: 'refresh_token grant' },
                  code: { type: 'string', description: 'authorization_code grant' },
                  code_verifier: { type: 'string', description: 'authorization_code grant (PKCE S256)' },
                  redirect_uri: { type: 'string', description: 'authorization_code grant: as sent to /auth/oauth/authorize' },
                  client_id: { type: 'string' },
                  client_secret: { type: 'string' },
                },
              },
            },
          ]),
        ),
      },
      responses: {
        '200': {
          description: 'A new access token',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['access_token', 'token_type', 'expires_in', 'refresh_token'],
                properties: {
                  access_token: { type: 'string' },
                  token_type: { type: 'string' },
                  expires_in: { type: 'number' },
                  refresh_token: { type: 'string' },
                  scope: { type: 'string' },
                  id_token: { type: 'string', description: 'authorization_code grant' },
                  user_id: { type: 'string', description: 'authorization_code grant' },
                  is_new_user: { type: 'boolean', description: 'authorization_code grant' },
                  after_callback_redirect_url: { type: ['string', 'null'], description: 'authorization_code grant' },
                },
              },
            },
          },
        },
        default: DEFAULT_ERROR,
      },
    },
  };
  const token = paths['/auth/oauth/token']!.post!;
  addExamples(token, schemas);
  Object.assign(token.responses as Json, errorResponses(TOKEN_ERRORS));
  token.security = [];
  token['x-codeSamples'] = [
    {
      lang: 'curl',
      source: `curl -X POST "$B/auth/oauth/token" \\\n  -d grant_type=refresh_token -d "refresh_token=$REFRESH_TOKEN" -d "client_id=$PROJECT_ID" -d "client_secret=$PUBLISHABLE_CLIENT_KEY"`,
    },
  ];
  schemas.Error = ERROR_SCHEMA;
  // trpc-to-openapi's own error shapes: Latch answers {code, details, error} (Error) instead.
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  components.examples = errorExamples([...mentioned, ...TOKEN_ERRORS, 'INTERNAL_SERVER_ERROR']);
  components.headers = {
    KnownError: { description: 'The catalogued error code (as in the body).', schema: { type: 'string' } },
    StackKnownError: {
      description: 'The same code under the name the Stack Auth SDKs read (README, "Migrating from Stack Auth").',
      schema: { type: 'string' },
    },
  };
  doc.paths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return doc;
}

/** A request example (body, or each parameter) and a response example, from the operation's schemas. */
function addExamples(operation: Json, schemas: Json): void {
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    parameter.example ??= exampleFor(parameter.schema as Json, schemas, parameter.name as string);
  }
  const bodies = [(operation.requestBody as Json | undefined)?.content, ...Object.values(operation.responses as Record<string, Json>).map((r) => r.content)];
  for (const content of bodies as (Record<string, Json> | undefined)[]) {
    for (const media of Object.values(content ?? {})) {
      if (media.example === undefined && media.examples === undefined) media.example = exampleFor(media.schema as Json, schemas);
    }
  }
}

const CURL_HEADERS: Record<string, string> = {
  'x-latch-project-id': '$PROJECT_ID',
  'x-latch-access-type': '',
  'x-latch-publishable-client-key': '$PUBLISHABLE_CLIENT_KEY',
  'x-latch-secret-server-key': '$SECRET_SERVER_KEY',
  'x-latch-super-secret-admin-key': '$SUPER_SECRET_ADMIN_KEY',
  'x-latch-admin-access-token': '$ADMIN_ACCESS_TOKEN',
  'x-latch-access-token': '$ACCESS_TOKEN',
  'x-latch-refresh-token': '$REFRESH_TOKEN',
};

/** A curl call with the headers of the operation's first security requirement and its example body. */
function curlSample(method: string, path: string, operation: Json): string {
  const requirement = ((operation.security ?? []) as Record<string, string[]>[])[0] ?? {};
  const level = 'x-latch-publishable-client-key' in requirement ? 'client' : 'x-latch-secret-server-key' in requirement ? 'server' : 'admin';
  const headers = Object.keys(requirement).map((name) => (name === 'x-latch-access-type' ? `-H '${name}: ${level}'` : `-H "${name}: ${CURL_HEADERS[name]}"`));
  const parameters = (operation.parameters ?? []) as Json[];
  let url = path;
  for (const p of parameters.filter((p) => p.in === 'path')) url = url.replace(`{${p.name as string}}`, String(p.example));
  const query = parameters.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name as string}=${encodeURIComponent(String(p.example))}`);
  const body = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
  const example = body?.['application/json']?.example;
  return [
    `curl -X ${method.toUpperCase()} "$B${url}${query.length ? `?${query.join('&')}` : ''}"`,
    ...headers,
    ...(example !== undefined ? ["-H 'content-type: application/json'", `-d '${JSON.stringify(example)}'`] : []),
  ].join(' \\\n  ');
}
