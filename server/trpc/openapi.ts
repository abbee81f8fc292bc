import { generateOpenApiDocument } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import { collectRoutes } from './rest.js';

type Json = Record<string, unknown>;

const SECURITY_HEADERS: Record<string, string> = {
  'x-latch-project-id': 'The project id.',
  'x-latch-access-type': 'client, server or admin.',
  'x-latch-publishable-client-key': 'Client access: the publishable client key (not needed for the internal project).',
  'x-latch-secret-server-key': 'Server access: the secret server key.',
  'x-latch-super-secret-admin-key': 'Admin access: the super secret admin key.',
  'x-latch-admin-access-token': "Admin access: an owner's access token from the internal project.",
  'x-latch-access-token': "The signed-in user's access token.",
  'x-latch-refresh-token': 'The refresh token (refresh call).',
};

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
    description: 'Authentication and user management. Every operation is also available over tRPC at /api/trpc.',
    baseUrl: '/api/v1',
    securitySchemes: Object.fromEntries(
      Object.entries(SECURITY_HEADERS).map(([name, description]) => [name, { type: 'apiKey', in: 'header', name, description }]),
    ),
  }) as unknown as Json;

  const statusByOperation = new Map(collectRoutes(router).map((r) => [`${r.method.toLowerCase()} ${r.template}`, r.successStatus]));
  const paths = doc.paths as Record<string, Record<string, Json>>;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = operation.responses as Record<string, Json>;
      const status = statusByOperation.get(`${method} ${path}`) ?? 200;
      if (status !== 200 && responses['200']) {
        responses[String(status)] = responses['200'];
        delete responses['200'];
      }
      for (const code of Object.keys(responses)) {
        if (code !== '200' && code !== '201') delete responses[code];
      }
      responses.default = { description: 'A catalogued error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
      // Every operation accepts the same credential headers; which ones it needs depends on its access level.
      operation.security = Object.keys(SECURITY_HEADERS).map((name) => ({ [name]: [] }));
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
                  after_callback_redirect_url: { type: 'string', nullable: true, description: 'authorization_code grant' },
                },
              },
            },
          },
        },
        default: { description: 'A catalogued error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  };
  const components = (doc.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Json;
  schemas.Error = ERROR_SCHEMA;
  doc.paths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return doc;
}
