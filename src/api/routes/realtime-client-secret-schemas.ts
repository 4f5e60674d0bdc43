// The route schema of POST /v1/realtime/client_secrets. Fastify validates the JSON body with
// RealtimeClientSecretRequest after the contract's own checks (client-secret-request.ts), which tell a
// malformed request (400) from a value this route cannot serve (422).
import { schemas } from '../openapi-components.js';
import { BEARER } from '../openapi-document.js';
import { answerHeaders, errorResponses } from '../openapi-responses.js';
import { ref } from '../openapi-schema-builders.js';
import type { RouteSchema } from '../openapi-types.js';

export const CREATE_CLIENT_SECRET_SCHEMA: RouteSchema = {
  operationId: 'createRealtimeClientSecret',
  summary: 'Mint a short-lived, single-use client secret for one realtime session',
  description:
    'For a browser or other client that must not hold the API key: it sends the secret as `client_secret` in its realtime `start` message. ' +
    "The secret is valid once, until `expires_at` (10 to 60 s; default 60), and only while the key is: the session runs as the key's. " +
    'Refused (402) while the key cannot start a realtime session for billing.',
  tags: ['realtime'],
  security: BEARER,
  body: schemas.RealtimeClientSecretRequest,
  bodyRequired: false,
  response: {
    '200': { description: 'The secret, shown once.', headers: answerHeaders(), content: { 'application/json': { schema: ref('RealtimeClientSecret') } } },
    ...errorResponses([400, 402, 408, 413, 415, 422]),
  },
};
